#include <sys/inotify.h>
#include <poll.h>
