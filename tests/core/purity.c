/* SPDX-License-Identifier: MIT */
/* Linked with the whole of libcore and nothing but libbasic and inih: if any object of the core
 * calls into the host, systemd or command-line layers, or into basic's I/O helpers, this does not
 * link. It is never run. */
int main(void) {
        return 0;
}
