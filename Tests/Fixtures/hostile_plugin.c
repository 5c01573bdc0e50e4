/*
 * hostile-ATTACK: a test double for the worker sandbox (`render --isolate`), built by
 * `make test-plugin` once per attack, each with its own id (never installed). It draws a square
 * like any effect, and in every render first tries one thing the sandbox refuses:
 *   -DATTACK_READ     read the file `target` (outside the job) and draw only if it could; `target`
 *                     "own-thread-stat" reads a new thread's /proc/<tid>/stat instead, as libdispatch's
 *                     thread-pool monitor does (which a worker must allow)
 *   -DATTACK_WRITE    create the file `target` (outside its cache)
 *   -DATTACK_CONNECT  connect to 127.0.0.1, port `port`, and send "hello"
 *   -DATTACK_EXEC     execve /bin/sh -c 'echo > target'
 *   -DATTACK_FORK     fork a child that creates `target`
 *   -DATTACK_MEMORY   allocate and touch memory until malloc fails (or 64 GiB)
 *   -DATTACK_REPLY    write `target` and a newline to the worker's socket (fd 3) as if it were the
 *                     worker's reply; `target` "flood" writes 1 MiB without a newline
 * Without --isolate (or with --sandbox off) each attack succeeds: a plugin in the render's own
 * process is trusted code.
 */
#include <arpa/inet.h>
#include <cairo.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "renderfarm_plugin.h"

#if defined(ATTACK_READ)
#define ATTACK "read"
#elif defined(ATTACK_WRITE)
#define ATTACK "write"
#elif defined(ATTACK_CONNECT)
#define ATTACK "connect"
#elif defined(ATTACK_EXEC)
#define ATTACK "exec"
#elif defined(ATTACK_FORK)
#define ATTACK "fork"
#elif defined(ATTACK_MEMORY)
#define ATTACK "memory"
#elif defined(ATTACK_REPLY)
#define ATTACK "reply"
#else
#error "build with one of -DATTACK_READ, _WRITE, _CONNECT, _EXEC, _FORK, _MEMORY, _REPLY"
#endif

typedef struct hostile {
    double width, height;
    char target[4096];
    double port;
} hostile;

static const rf_param parameters[] = {
    { "target", RF_PARAM_STRING, "\"\"", 0, 0, NULL, "the file the attack reads or creates", 0 },
    { "port", RF_PARAM_INTEGER, "0", 0, 65535, NULL, "the 127.0.0.1 port the attack connects to", 0 },
};

static int create(const rf_create_args *args, const rf_context *ctx, void **out, char *err, size_t errlen) {
    hostile *h = calloc(1, sizeof(*h));
    if (!h) {
        snprintf(err, errlen, "out of memory");
        return RF_ERROR_RESOURCE;
    }
    h->width = ctx->width;
    h->height = ctx->height;
    const char *target = args->access->string(args->params, "target");
    if (target) snprintf(h->target, sizeof h->target, "%s", target);
    args->access->number(args->params, "port", &h->port);
    *out = h;
    return RF_OK;
}

#if defined(ATTACK_READ)
/* A thread reads its own /proc/<tid>/stat; `result` becomes 1 when it could. */
static void *thread_stat(void *result) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)syscall(SYS_gettid));
    FILE *file = fopen(path, "r");
    char text[256];
    *(int *)result = file != NULL && fread(text, 1, sizeof text, file) > 0;
    if (file) fclose(file);
    return NULL;
}
#endif

/* The attack: 0 when it went through, else a message in `err`. */
static int attack(hostile *h, char *err, size_t errlen) {
#if defined(ATTACK_READ)
    if (strcmp(h->target, "own-thread-stat") == 0) {
        int read = 0;
        pthread_t thread;
        if (pthread_create(&thread, NULL, thread_stat, &read) != 0 || pthread_join(thread, NULL) != 0 || !read) {
            snprintf(err, errlen, "could not read its thread's /proc/<tid>/stat");
            return 1;
        }
        return 0;
    }
    FILE *file = fopen(h->target, "r");
    if (!file) {
        snprintf(err, errlen, "could not read %s", h->target);
        return 1;
    }
    char secret[64];
    size_t count = fread(secret, 1, sizeof secret, file);
    fclose(file);
    return count > 0 ? 0 : 1;
#elif defined(ATTACK_WRITE)
    FILE *file = fopen(h->target, "w");
    if (!file) {
        snprintf(err, errlen, "could not create %s", h->target);
        return 1;
    }
    fputs("written by a plugin\n", file);
    fclose(file);
    return 0;
#elif defined(ATTACK_CONNECT)
    int descriptor = socket(AF_INET, SOCK_STREAM, 0);
    if (descriptor < 0) {
        snprintf(err, errlen, "no socket");
        return 1;
    }
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons((uint16_t)h->port) };
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int connected = connect(descriptor, (struct sockaddr *)&address, sizeof address) == 0;
    if (connected) {
        ssize_t ignored = write(descriptor, "hello", 5);
        (void)ignored;
    }
    close(descriptor);
    if (!connected) snprintf(err, errlen, "could not connect to port %d", (int)h->port);
    return !connected;
#elif defined(ATTACK_EXEC)
    char command[4200];
    snprintf(command, sizeof command, "echo > '%s'", h->target);
    char *const argv[] = { "sh", "-c", command, NULL };
    execv("/bin/sh", argv);
    snprintf(err, errlen, "could not run /bin/sh");
    return 1;
#elif defined(ATTACK_FORK)
    pid_t child = fork();
    if (child == 0) {
        FILE *file = fopen(h->target, "w");
        if (file) fclose(file);
        _exit(0);
    }
    if (child < 0) {
        snprintf(err, errlen, "could not fork");
        return 1;
    }
    waitpid(child, NULL, 0);
    return 0;
#elif defined(ATTACK_MEMORY)
    size_t total = 0;
    const size_t chunk = 64u << 20;
    while (total < ((size_t)64 << 30)) {
        char *block = malloc(chunk);
        if (!block) {
            snprintf(err, errlen, "allocation failed after %zu MiB", total >> 20);
            return 1;
        }
        memset(block, 1, chunk);
        total += chunk;
    }
    return 0;
#elif defined(ATTACK_REPLY)
    if (strcmp(h->target, "flood") == 0) {
        static char flood[1 << 20];
        memset(flood, 'x', sizeof flood);
        ssize_t ignored = write(3, flood, sizeof flood);
        (void)ignored;
    } else {
        char line[4200];
        int length = snprintf(line, sizeof line, "%s\n", h->target);
        ssize_t ignored = write(3, line, (size_t)length);
        (void)ignored;
    }
    (void)err;
    (void)errlen;
    return 0;
#endif
}

static int render(void *instance, cairo_t *cr, const rf_frame *frame, char *err, size_t errlen) {
    (void)frame;
    hostile *h = instance;
    if (attack(h, err, errlen) != 0) return RF_ERROR_RENDER;
    cairo_set_source_rgba(cr, 1, 0, 0, 1);
    cairo_rectangle(cr, h->width / 4, h->height / 4, h->width / 2, h->height / 2);
    cairo_fill(cr);
    return RF_OK;
}

static void destroy(void *instance) { free(instance); }

static const rf_plugin descriptor = {
    .abi_version = RF_ABI_VERSION,
    .struct_size = sizeof(rf_plugin),
    .id = "hostile-" ATTACK,
    .identifier = "org.renderfarm.tests.hostile." ATTACK,
    .version = "1.0.0",
    .summary = "Test double: tries one thing the worker sandbox refuses (" ATTACK ")",
    .thread_safety = RF_THREADS_FULL,
    .params = parameters,
    .param_count = sizeof(parameters) / sizeof(parameters[0]),
    .create = create,
    .render = render,
    .destroy = destroy,
};

const rf_plugin *rf_plugin_main(uint32_t host_abi_version) {
    return host_abi_version == RF_ABI_VERSION ? &descriptor : NULL;
}
