# shellcheck shell=bash
# Sourced by the benchmarks in this directory.

# empty_program DIR: builds DIR/empty, a C program that returns at once, with the system's cc as it
# links by default (dynamically, against libc), and prints its path. Timed in a run beside the
# commands, it is what a process costs to start and end on this machine, the floor that ratios.py
# --empty takes from each mean to leave the command's own work.
empty_program() {
	printf 'int main(void);\nint main(void) { return 0; }\n' >"$1/empty.c"
	cc -O2 -o "$1/empty" "$1/empty.c"
	echo "$1/empty"
}
