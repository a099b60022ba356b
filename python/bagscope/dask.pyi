from typing import Any, Optional, Sequence, Union

TimeArg = Union[None, int]

def read(bags: Union[str, Sequence[str]], paths: Union[str, Sequence[str]], start: TimeArg = ..., end: TimeArg = ...,
         filter: Optional[str] = ..., slices: int = ..., msg_path: Optional[Sequence[str]] = ...) -> Any: ...
def stats(bags: Union[str, Sequence[str]], msg_path: Optional[Sequence[str]] = ...) -> Any: ...
