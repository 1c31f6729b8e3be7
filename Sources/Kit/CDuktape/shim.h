#ifndef SUSI_CDUKTAPE_SHIM_H
#define SUSI_CDUKTAPE_SHIM_H
// The system's duktape (an embeddable ECMAScript 5.1 engine) and how susi runs scripts in it.
//
// `susi_script_spawn` forks a worker process that runs only the C below: it closes every
// inherited descriptor but its socket, then answers requests (a script) one at a time: a fresh
// duktape heap whose allocator counts every byte against a budget (an allocation over it fails,
// which the script sees as an error), no host function but `print` (which appends to a bounded
// buffer that is sent back, never to a file), the script evaluated, the outcome written back,
// the heap destroyed. An alarm kills the worker if a script outlives its time by a second, and
// the worker leaves when its socket closes. The parent reads each outcome within the time limit
// and kills the worker when it is over: duktape as Debian builds it has no execution timeout
// hook, and a separate process is the one thing a `while (true) {}` cannot escape.
#include <duktape.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

// Declared only under _GNU_SOURCE, which would change how the shared system headers compile in
// this module; declaring it here keeps those identical.
extern int close_range(unsigned int first, unsigned int last, int flags);

// An outcome is its status byte, 8 bytes of payload length, then the payload.
enum {
  SUSI_SCRIPT_RESULT = 'R',     // payload: 8 bytes of result length, the result, the printed text
  SUSI_SCRIPT_ERROR = 'E',      // payload: the error message
  SUSI_SCRIPT_NO_MEMORY = 'M',  // the byte budget ran out
  SUSI_SCRIPT_TOO_LONG = 'L',   // result and printed text longer than the output limit
};

typedef struct {
  size_t used;
  size_t limit;
  int refused;
  int fd;
  char *output;
  size_t outputLength;
  size_t outputLimit;
  int outputOverflow;
} susi_script_budget;

// Every block carries its size in a 16-byte header, so frees and reallocs are counted exactly.
static void *susi_script_alloc(void *udata, duk_size_t size) {
  susi_script_budget *budget = (susi_script_budget *)udata;
  if (size > budget->limit - budget->used) {
    budget->refused = 1;
    return NULL;
  }
  size_t *block = (size_t *)malloc(size + 16);
  if (block == NULL) return NULL;
  block[0] = size;
  budget->used += size;
  return (char *)block + 16;
}

static void susi_script_free(void *udata, void *pointer) {
  if (pointer == NULL) return;
  susi_script_budget *budget = (susi_script_budget *)udata;
  size_t *block = (size_t *)((char *)pointer - 16);
  budget->used -= block[0];
  free(block);
}

static void *susi_script_realloc(void *udata, void *pointer, duk_size_t size) {
  if (pointer == NULL) return susi_script_alloc(udata, size);
  if (size == 0) {
    susi_script_free(udata, pointer);
    return NULL;
  }
  susi_script_budget *budget = (susi_script_budget *)udata;
  size_t *block = (size_t *)((char *)pointer - 16);
  size_t old = block[0];
  if (size > old && size - old > budget->limit - budget->used) {
    budget->refused = 1;
    return NULL;
  }
  size_t *moved = (size_t *)realloc(block, size + 16);
  if (moved == NULL) return NULL;
  budget->used = budget->used - old + size;
  moved[0] = size;
  return (char *)moved + 16;
}

static int susi_script_write_all(int fd, const void *bytes, size_t length) {
  const char *next = (const char *)bytes;
  while (length > 0) {
    ssize_t written = send(fd, next, length, MSG_NOSIGNAL);
    if (written < 0) {
      if (errno == EINTR) continue;
      return 0;
    }
    next += written;
    length -= (size_t)written;
  }
  return 1;
}

static int susi_script_read_all(int fd, void *bytes, size_t length) {
  char *next = (char *)bytes;
  while (length > 0) {
    ssize_t count = read(fd, next, length);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) return 0;
    next += count;
    length -= (size_t)count;
  }
  return 1;
}

// Writes one outcome: the status, the payload length, then the parts of the payload.
static void susi_script_send(
    int fd, char status, const void *first, size_t firstLength, const void *second,
    size_t secondLength) {
  uint64_t length = firstLength + secondLength;
  if (!susi_script_write_all(fd, &status, 1) || !susi_script_write_all(fd, &length, 8)
      || !susi_script_write_all(fd, first, firstLength)
      || !susi_script_write_all(fd, second, secondLength)) {
    _exit(0);
  }
}

// Duktape gave up (it cannot go on with this heap): report and leave; the parent starts another.
static void susi_script_fatal(void *udata, const char *message) {
  susi_script_budget *budget = (susi_script_budget *)udata;
  if (budget->refused) {
    susi_script_send(budget->fd, SUSI_SCRIPT_NO_MEMORY, "", 0, "", 0);
  } else {
    susi_script_send(
        budget->fd, SUSI_SCRIPT_ERROR, message, message ? strlen(message) : 0, "", 0);
  }
  _exit(0);
}

static void susi_script_append(susi_script_budget *budget, const char *text, size_t length) {
  size_t room = budget->outputLimit - budget->outputLength;
  if (length > room) {
    length = room;
    budget->outputOverflow = 1;
  }
  memcpy(budget->output + budget->outputLength, text, length);
  budget->outputLength += length;
}

// `print(a, b, …)`: the arguments as strings, separated by spaces, then a line break.
static duk_ret_t susi_script_print(duk_context *context) {
  duk_memory_functions functions;
  duk_get_memory_functions(context, &functions);
  susi_script_budget *budget = (susi_script_budget *)functions.udata;
  duk_idx_t count = duk_get_top(context);
  for (duk_idx_t index = 0; index < count; index++) {
    duk_size_t length = 0;
    const char *text = duk_safe_to_lstring(context, index, &length);
    if (index > 0) susi_script_append(budget, " ", 1);
    susi_script_append(budget, text, length);
  }
  susi_script_append(budget, "\n", 1);
  return 0;
}

// Evaluates one script in a fresh heap and sends its outcome.
static void susi_script_run(
    int fd, const char *source, size_t length, size_t memoryLimit, char *output,
    size_t outputLimit) {
  susi_script_budget budget = {0, memoryLimit, 0, fd, output, 0, outputLimit, 0};
  duk_context *context = duk_create_heap(
      susi_script_alloc, susi_script_realloc, susi_script_free, &budget, susi_script_fatal);
  if (context == NULL) {
    susi_script_send(fd, SUSI_SCRIPT_NO_MEMORY, "", 0, "", 0);
    return;
  }
  duk_push_c_function(context, susi_script_print, DUK_VARARGS);
  duk_put_global_string(context, "print");
  if (duk_peval_lstring(context, source, length) != 0) {
    if (budget.refused) {
      susi_script_send(fd, SUSI_SCRIPT_NO_MEMORY, "", 0, "", 0);
    } else {
      duk_size_t messageLength = 0;
      const char *message = duk_safe_to_lstring(context, -1, &messageLength);
      susi_script_send(fd, SUSI_SCRIPT_ERROR, message, messageLength, "", 0);
    }
  } else {
    duk_size_t resultLength = 0;
    const char *result = "";
    if (!duk_is_undefined(context, -1) && !duk_is_null(context, -1)) {
      result = duk_safe_to_lstring(context, -1, &resultLength);
    }
    if (budget.outputOverflow || resultLength > outputLimit - budget.outputLength) {
      susi_script_send(fd, SUSI_SCRIPT_TOO_LONG, "", 0, "", 0);
    } else {
      uint64_t size = resultLength;
      char status = SUSI_SCRIPT_RESULT;
      uint64_t total = 8 + resultLength + budget.outputLength;
      if (!susi_script_write_all(fd, &status, 1) || !susi_script_write_all(fd, &total, 8)
          || !susi_script_write_all(fd, &size, 8)
          || !susi_script_write_all(fd, result, resultLength)
          || !susi_script_write_all(fd, output, budget.outputLength)) {
        _exit(0);
      }
    }
  }
  duk_destroy_heap(context);
}

// The worker: one request (8 bytes of length, then the script) after another, until the socket
// closes.
static void susi_script_serve(
    int fd, size_t memoryLimit, size_t outputLimit, size_t sourceLimit, unsigned int seconds) {
  if (fd > 3) close_range(3, (unsigned int)fd - 1, 0);
  close_range((unsigned int)fd + 1, ~0U, 0);
  signal(SIGALRM, SIG_DFL);
  // A fork keeps the forking thread's signal mask, and Swift's worker threads block most
  // signals: without this the alarm would never reach the worker.
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  char *output = (char *)malloc(outputLimit + 1);
  char *source = (char *)malloc(sourceLimit + 1);
  if (output == NULL || source == NULL) _exit(0);
  for (;;) {
    uint64_t length = 0;
    if (!susi_script_read_all(fd, &length, 8) || length > sourceLimit) _exit(0);
    if (!susi_script_read_all(fd, source, (size_t)length)) _exit(0);
    alarm(seconds + 1);
    susi_script_run(fd, source, (size_t)length, memoryLimit, output, outputLimit);
    alarm(0);
  }
}

// Starts a worker; returns its pid (or -1 with errno set) and the parent's end of its socket.
static inline pid_t susi_script_spawn(
    size_t memoryLimit, size_t outputLimit, size_t sourceLimit, unsigned int seconds,
    int *socketEnd) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return -1;
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    close(fds[0]);
    susi_script_serve(fds[1], memoryLimit, outputLimit, sourceLimit, seconds);
    _exit(0);
  }
  close(fds[1]);
  *socketEnd = fds[0];
  return pid;
}

// Sends one request to a worker: 1 when it went out, 0 when the worker is gone.
static inline int susi_script_request(int fd, const char *source, size_t length) {
  uint64_t size = length;
  return susi_script_write_all(fd, &size, 8) && susi_script_write_all(fd, source, length);
}
#endif
