#ifndef SUSI_CEPOLL_SHIM_H
#define SUSI_CEPOLL_SHIM_H
// The Linux socket APIs the HTTP server's event loop uses that the toolchain's Glibc module
// does not export: epoll, eventfd and accept4.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

static inline int susi_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags) {
  return accept4(fd, address, length, flags);
}
#endif
