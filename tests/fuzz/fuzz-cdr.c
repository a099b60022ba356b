/*
 * fuzz-cdr.c - the CDR decoder and printers: fuzz-decode.c's input (a 2-byte
 * length, a definition, the message) with the definition read as ros2msg
 * and the message as CDR.
 */
#define FUZZ_ENCODING BAG_ENCODING_CDR
#define FUZZ_TYPE "fuzz_pkg/msg/Msg"
#include "fuzz-decode.c"
