/*
 * hostile-ATTACK: a test double for the worker sandbox (`render --isolate`), built by
 * `make test-plugin` once per attack, each with its own id (never installed). It draws a square
 * like any effect, and in every render (or only at frame `frame`, when not -1) first tries one
 * thing the sandbox refuses; when the attack fails, the frame fails with what the kernel answered:
 *   -DATTACK_READ       read the file `target` (outside the job) and draw only if it could; `target`
 *                       "own-thread-stat" reads a new thread's /proc/<tid>/stat instead, as libdispatch's
 *                       thread-pool monitor does (which a worker must allow)
 *   -DATTACK_WRITE      create the file `target` (outside its cache)
 *   -DATTACK_CONNECT    connect to 127.0.0.1, port `port`, and send "hello"
 *   -DATTACK_EXEC       execve /bin/sh -c 'echo > target'
 *   -DATTACK_FORK       fork a child that creates `target`
 *   -DATTACK_MEMORY     allocate and touch memory until malloc fails (or 64 GiB); target "crash" then
 *                       writes through the NULL pointer
 *   -DATTACK_REPLY      write `target` and a newline to the worker's socket (fd 3) as if it were the
 *                       worker's reply; `target` "flood" writes 1 MiB without a newline; "png-garbage" a
 *                       frame reply as workers sent them before they sent pixels (`ok`, a checksum, a byte
 *                       count) and that many bytes: a PNG signature and the IHDR of the 40×40 canvas, then
 *                       garbage; "pixels-garbage" garbage in the memory the render shares with its worker
 *                       (found in /proc/self/maps) and a frame reply that says the pixels are there, or a
 *                       frame reply and 40×40 pixels of garbage on the socket without that memory
 *   -DATTACK_NETDEV     through the inherited socket (fd 3), or a new one when `target` ends in "-new":
 *                       "down" brings the loopback interface down, "mtu" sets its MTU to 1280
 *   -DATTACK_FREEZE     FIFREEZE on a read-only descriptor of its own library (thawed at once if it worked)
 *   -DATTACK_IMMUTABLE  FS_IOC_SETFLAGS: the immutable flag on a read-only descriptor of its own library
 *   -DATTACK_CHMOD      fchmod 04777 on a read-only descriptor of its own library
 *   -DATTACK_METADATA   `call` (stat, access, readlink, getxattr or statfs) on the path `target`: it
 *                       worked unless the kernel said the path does not exist; `call` "descriptor" finds
 *                       whether the descriptor numbered `target` (one the render had) is open
 *   -DATTACK_UTIME      utimensat: set the times of `target` to now
 *   -DATTACK_SIGSYS     install its own SIGSYS handler, then guess the mark that lets the seccomp
 *                       filter pass an open unchecked, to read `target`
 *   -DATTACK_PDEATHSIG  clear its parent-death signal, then sleep for ever (to outlive a killed render)
 *   -DATTACK_RLIMIT     lift its CPU time limit (soft and hard) to unlimited
 *   -DATTACK_SPIN       spin for ever
 *   -DATTACK_PTRACE     attach to its parent (the render) with ptrace
 *   -DATTACK_MOUNT      mount a tmpfs on the folder `target`
 * `phase` says in which call the attack is made: "render" (the default), or "create", "verify",
 * "prepare" or "frame_key" (the calls a render makes before any frame, which `render --isolate` makes
 * in sandboxed workers too). frame_key answers only then (with a key that is the same for every frame).
 * "input_files" makes no attack but names `target` as the layer's input file (without reading it).
 * Without --isolate (or with --sandbox off) each attack succeeds as far as the user's rights go: a
 * plugin in the render's own process is trusted code.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <cairo.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
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
#elif defined(ATTACK_NETDEV)
#define ATTACK "netdev"
#elif defined(ATTACK_FREEZE)
#define ATTACK "freeze"
#elif defined(ATTACK_IMMUTABLE)
#define ATTACK "immutable"
#elif defined(ATTACK_CHMOD)
#define ATTACK "chmod"
#elif defined(ATTACK_METADATA)
#define ATTACK "metadata"
#elif defined(ATTACK_UTIME)
#define ATTACK "utime"
#elif defined(ATTACK_SIGSYS)
#define ATTACK "sigsys"
#elif defined(ATTACK_PDEATHSIG)
#define ATTACK "pdeathsig"
#elif defined(ATTACK_RLIMIT)
#define ATTACK "rlimit"
#elif defined(ATTACK_SPIN)
#define ATTACK "spin"
#elif defined(ATTACK_PTRACE)
#define ATTACK "ptrace"
#elif defined(ATTACK_MOUNT)
#define ATTACK "mount"
#else
#error "build with one of -DATTACK_READ, _WRITE, _CONNECT, _EXEC, _FORK, _MEMORY, _REPLY, _NETDEV, _FREEZE, \
_IMMUTABLE, _CHMOD, _METADATA, _UTIME, _SIGSYS, _PDEATHSIG, _RLIMIT, _SPIN, _PTRACE, _MOUNT"
#endif

typedef struct hostile {
    double width, height;
    char target[4096];
    char call[32];
    double port;
    double frame;
    char phase[16];
} hostile;

static const rf_param parameters[] = {
    { "target", RF_PARAM_STRING, "\"\"", 0, 0, NULL, "the file the attack reads or creates", 0 },
    { "port", RF_PARAM_INTEGER, "0", 0, 65535, NULL, "the 127.0.0.1 port the attack connects to", 0 },
    { "call", RF_PARAM_STRING, "\"stat\"", 0, 0, NULL, "the metadata call the attack makes", 0 },
    { "frame", RF_PARAM_INTEGER, "-1", -1, 100000, NULL, "the only frame that attacks (-1: every frame)", 0 },
    { "phase", RF_PARAM_STRING, "\"render\"", 0, 0, NULL, "the call that attacks: render, create, verify, prepare or frame_key", 0 },
};

static int attack(struct hostile *h, char *err, size_t errlen);

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
    const char *call = args->access->string(args->params, "call");
    if (call) snprintf(h->call, sizeof h->call, "%s", call);
    h->frame = -1;
    args->access->number(args->params, "frame", &h->frame);
    const char *phase = args->access->string(args->params, "phase");
    snprintf(h->phase, sizeof h->phase, "%s", phase ? phase : "render");
    if (strcmp(h->phase, "create") == 0 && attack(h, err, errlen) != 0) {
        free(h);
        return RF_ERROR_PARAMS;
    }
    *out = h;
    return RF_OK;
}

static int verify(void *instance, char *err, size_t errlen) {
    hostile *h = instance;
    return strcmp(h->phase, "verify") == 0 && attack(h, err, errlen) != 0 ? RF_ERROR_PARAMS : RF_OK;
}

static int prepare(void *instance, uint32_t first, uint32_t last, char *err, size_t errlen) {
    hostile *h = instance;
    (void)first;
    (void)last;
    return strcmp(h->phase, "prepare") == 0 && attack(h, err, errlen) != 0 ? RF_ERROR_RENDER : RF_OK;
}

static int input_files(void *instance, rf_write_fn write, void *user) {
    hostile *h = instance;
    if (strcmp(h->phase, "input_files") == 0) write(user, h->target, strlen(h->target));
    return RF_OK;
}

static int frame_key(void *instance, const rf_frame *frame, uint8_t *key) {
    hostile *h = instance;
    (void)frame;
    if (strcmp(h->phase, "frame_key") != 0) return RF_ERROR_UNSUPPORTED;
    static __thread char err[8192]; /* frame_key has no message: what went wrong is dropped */
    if (attack(h, err, sizeof err) != 0) return RF_ERROR_RENDER;
    memset(key, 7, RF_FRAME_KEY_SIZE);
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

#if defined(ATTACK_FREEZE) || defined(ATTACK_IMMUTABLE) || defined(ATTACK_CHMOD)
/* A read-only descriptor of this library, which the sandbox lets a plugin read. */
static int own_library(char *err, size_t errlen) {
    Dl_info info;
    if (dladdr((void *)own_library, &info) == 0 || info.dli_fname == NULL) {
        snprintf(err, errlen, "cannot find its own library");
        return -1;
    }
    int descriptor = open(info.dli_fname, O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) snprintf(err, errlen, "cannot open %s: %s", info.dli_fname, strerror(errno));
    return descriptor;
}
#endif

#if defined(ATTACK_SIGSYS)
static volatile sig_atomic_t trapped;
static void own_handler(int signal) {
    (void)signal;
    trapped = 1;
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
        snprintf(err, errlen, "could not read %s: %s", h->target, strerror(errno));
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
        /* target "crash": a careless plugin, which writes through the NULL it was given. */
        if (!block && strcmp(h->target, "crash") == 0) *(volatile char *)block = 1;
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
    } else if (strcmp(h->target, "png-garbage") == 0 || strcmp(h->target, "pixels-garbage") == 0) {
        static unsigned char frame[40 * 40 * 4];
        for (size_t index = 0; index < sizeof frame; index++) frame[index] = (unsigned char)(index * 131 + 7);
        size_t count = sizeof frame;
        char line[160];
        /* The memory the render shares with its worker for the pixels (/proc/self/maps names it). */
        unsigned long start = 0, end = 0;
        FILE *maps = h->target[1] == 'i' ? fopen("/proc/self/maps", "r") : NULL;
        if (maps) {
            char entry[512];
            while (fgets(entry, sizeof entry, maps))
                if (strstr(entry, "renderfarm-frame") && sscanf(entry, "%lx-%lx", &start, &end) == 2) break;
            fclose(maps);
        }
        if (end > start) {
            unsigned char *shared = (unsigned char *)start;
            for (size_t index = 0; index < end - start; index++) shared[index] = (unsigned char)(index * 131 + 7);
            snprintf(line, sizeof line, "shared 1\n");
            count = 0;
        } else if (h->target[0] == 'p' && h->target[1] == 'n') {
            static const unsigned char header[] = {
                0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 'I', 'H', 'D', 'R',
                0, 0, 0, 40, 0, 0, 0, 40, 8, 2, 0, 0, 0,
            };
            memcpy(frame, header, sizeof header);
            count = 1000;
            snprintf(line, sizeof line, "ok %064d %zu 1 0 0 0 0\n", 0, count);
        } else {
            snprintf(line, sizeof line, "pixels 1\n");
        }
        ssize_t ignored = write(3, line, strlen(line));
        if (count) ignored = write(3, frame, count);
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
#elif defined(ATTACK_NETDEV)
    int fresh = strstr(h->target, "-new") != NULL;
    int descriptor = fresh ? socket(AF_INET, SOCK_DGRAM, 0) : 3;
    if (descriptor < 0) {
        snprintf(err, errlen, "no socket: %s", strerror(errno));
        return 1;
    }
    struct ifreq request;
    memset(&request, 0, sizeof request);
    snprintf(request.ifr_name, sizeof request.ifr_name, "lo");
    int done;
    if (strncmp(h->target, "mtu", 3) == 0) {
        request.ifr_mtu = 1280;
        done = ioctl(descriptor, SIOCSIFMTU, &request) == 0;
    } else {
        request.ifr_flags = 0; /* not IFF_UP */
        done = ioctl(descriptor, SIOCSIFFLAGS, &request) == 0;
    }
    if (!done) snprintf(err, errlen, "could not change the loopback interface: %s", strerror(errno));
    if (fresh) close(descriptor);
    return !done;
#elif defined(ATTACK_FREEZE)
    int descriptor = own_library(err, errlen);
    if (descriptor < 0) return 1;
    int frozen = ioctl(descriptor, FIFREEZE, 0) == 0;
    if (!frozen) snprintf(err, errlen, "could not freeze the file system: %s", strerror(errno));
    if (frozen) ioctl(descriptor, FITHAW, 0); /* a test that fails leaves no frozen disk behind */
    close(descriptor);
    return !frozen;
#elif defined(ATTACK_IMMUTABLE)
    int descriptor = own_library(err, errlen);
    if (descriptor < 0) return 1;
    /* Straight to FS_IOC_SETFLAGS (ext4's files carry the extents flag, which cannot be cleared). */
    int flags = FS_IMMUTABLE_FL | FS_EXTENT_FL;
    int set = ioctl(descriptor, FS_IOC_SETFLAGS, &flags) == 0;
    if (!set && (errno == EOPNOTSUPP || errno == EINVAL)) {
        flags = FS_IMMUTABLE_FL;
        set = ioctl(descriptor, FS_IOC_SETFLAGS, &flags) == 0;
    }
    if (!set) snprintf(err, errlen, "could not make its library immutable: %s", strerror(errno));
    close(descriptor);
    return !set;
#elif defined(ATTACK_CHMOD)
    int descriptor = own_library(err, errlen);
    if (descriptor < 0) return 1;
    int changed = fchmod(descriptor, 04777) == 0;
    if (!changed) snprintf(err, errlen, "could not change its library's mode: %s", strerror(errno));
    close(descriptor);
    return !changed;
#elif defined(ATTACK_METADATA)
    int result = -1;
    char text[256];
    struct stat status;
    struct statfs file_system;
    if (strcmp(h->call, "stat") == 0) result = stat(h->target, &status);
    if (strcmp(h->call, "access") == 0) result = access(h->target, F_OK);
    if (strcmp(h->call, "readlink") == 0) result = (int)readlink(h->target, text, sizeof text);
    if (strcmp(h->call, "getxattr") == 0) result = (int)getxattr(h->target, "user.none", text, sizeof text);
    if (strcmp(h->call, "statfs") == 0) result = statfs(h->target, &file_system);
    /* A descriptor the render had open, by number: reaching it at all is the leak. */
    if (strcmp(h->call, "descriptor") == 0) {
        if (fcntl(atoi(h->target), F_GETFD) >= 0) return 0;
        snprintf(err, errlen, "descriptor %s is not open: %s", h->target, strerror(errno));
        return 1;
    }
    /* Any answer but "no such file" (EINVAL: not a link, ENODATA: no such attribute) tells it exists. */
    if (result < 0 && errno == ENOENT) {
        snprintf(err, errlen, "could not %s %s: %s", h->call, h->target, strerror(errno));
        return 1;
    }
    return 0;
#elif defined(ATTACK_UTIME)
    if (utimensat(AT_FDCWD, h->target, NULL, 0) != 0) {
        snprintf(err, errlen, "could not change the times of %s: %s", h->target, strerror(errno));
        return 1;
    }
    return 0;
#elif defined(ATTACK_SIGSYS)
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = own_handler;
    if (sigaction(SIGSYS, &action, NULL) != 0) {
        snprintf(err, errlen, "could not install a SIGSYS handler: %s", strerror(errno));
        return 1;
    }
    /* The old filter's mark was 15 bits at bit 16 of openat's mode. */
    for (unsigned long guess = 1; guess < 0x8000; guess++) {
        trapped = 0;
        long descriptor = syscall(SYS_openat, AT_FDCWD, h->target, O_RDONLY, guess << 16);
        if (trapped || descriptor < 0) continue;
        char secret[64];
        ssize_t count = read((int)descriptor, secret, sizeof secret);
        close((int)descriptor);
        if (count > 0) return 0;
    }
    snprintf(err, errlen, "could not get past the path check to read %s", h->target);
    return 1;
#elif defined(ATTACK_PDEATHSIG)
    if (prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0) != 0) {
        snprintf(err, errlen, "could not clear its parent-death signal: %s", strerror(errno));
        return 1;
    }
    for (;;) pause();
#elif defined(ATTACK_RLIMIT)
    struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
    if (setrlimit(RLIMIT_CPU, &unlimited) != 0) {
        snprintf(err, errlen, "could not lift its CPU time limit: %s", strerror(errno));
        return 1;
    }
    return 0;
#elif defined(ATTACK_SPIN)
    static volatile unsigned long spins;
    while (spins != (unsigned long)-1 || err == NULL) spins++; /* never ends: a counter cannot wrap first */
    snprintf(err, errlen, "stopped spinning");
    return 1;
#elif defined(ATTACK_PTRACE)
    if (ptrace(PTRACE_ATTACH, getppid(), NULL, NULL) != 0) {
        snprintf(err, errlen, "could not attach to the render: %s", strerror(errno));
        return 1;
    }
    ptrace(PTRACE_DETACH, getppid(), NULL, NULL);
    return 0;
#elif defined(ATTACK_MOUNT)
    if (mount("none", h->target, "tmpfs", 0, NULL) != 0) {
        snprintf(err, errlen, "could not mount on %s: %s", h->target, strerror(errno));
        return 1;
    }
    return 0;
#endif
}

static int render(void *instance, cairo_t *cr, const rf_frame *frame, char *err, size_t errlen) {
    hostile *h = instance;
    if (strcmp(h->phase, "render") == 0 && (h->frame < 0 || (double)frame->index == h->frame) &&
        attack(h, err, errlen) != 0)
        return RF_ERROR_RENDER;
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
    .prepare = prepare,
    .frame_key = frame_key,
    .input_files = input_files,
    .verify = verify,
};

const rf_plugin *rf_plugin_main(uint32_t host_abi_version) {
    return host_abi_version == RF_ABI_VERSION ? &descriptor : NULL;
}
