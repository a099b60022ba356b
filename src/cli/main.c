/* main.c - bagscope's entry point: dispatches to the subcommands. */
#include <stdio.h>

#include <bagscope/bagscope.h>

int main(int argc, char **argv)
{
	fprintf(stderr, "bagscope: not yet\n");
	return 2;
}
