#ifndef SUSI_CEPOLL_SHIM_H
#define SUSI_CEPOLL_SHIM_H
// The Linux socket APIs the HTTP server's event loop uses that the toolchain's Glibc module
// does not export: epoll, eventfd and accept4.
#include <sys/epoll.h>
#include <sys/eventfd.h>

// accept4 is declared by <sys/socket.h> only under _GNU_SOURCE, which would change how the
// shared system headers compile in this module; declaring it here keeps them identical.
extern int accept4(int fd, void *address, unsigned int *length, int flags);

static inline int susi_accept4(int fd, void *address, unsigned int *length, int flags) {
  return accept4(fd, address, length, flags);
}
#endif
