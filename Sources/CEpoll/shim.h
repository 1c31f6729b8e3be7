#ifndef SUSI_CEPOLL_SHIM_H
#define SUSI_CEPOLL_SHIM_H
// The Linux socket APIs the HTTP server's event loop uses that the toolchain's Glibc module
// does not export: epoll, eventfd, accept4, and naming threads (for profilers).
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

// accept4 and pthread_setname_np are declared only under _GNU_SOURCE, which would change how the
// shared system headers compile in this module; declaring it here keeps them identical.
extern int accept4(int fd, void *address, unsigned int *length, int flags);

static inline int susi_accept4(int fd, void *address, unsigned int *length, int flags) {
  return accept4(fd, address, length, flags);
}

extern int pthread_setname_np(pthread_t thread, const char *name);

static inline void susi_name_current_thread(const char *name) {
  pthread_setname_np(pthread_self(), name);
}
#endif
