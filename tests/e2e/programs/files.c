/* files.c OP PATH [ARG]: one file operation through WASI, as a guest would
 * try it. Prints what it read or "ok ...", or "cannot OP PATH: reason" and
 * exits 1. OP: read, write PATH TEXT, create, append, mkdir, rmdir, unlink,
 * stat, lstat, readlink, utime, truncate, list, rename PATH TO, link PATH TO,
 * symlink TARGET LINK, rawread PATH (WASI path_open on the first preopen's
 * descriptor with PATH as given, bypassing libc's path handling). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include <wasi/api.h>

static int fail(const char *op, const char *path) {
    printf("cannot %s %s: %s\n", op, path, strerror(errno));
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    const char *op = argv[1], *path = argv[2], *arg = argc > 3 ? argv[3] : "";
    if (!strcmp(op, "read") || !strcmp(op, "write")) {
        FILE *f = fopen(path, !strcmp(op, "write") ? "w" : "r");
        if (!f) return fail("open", path);
        if (!strcmp(op, "write")) {
            fputs(arg, f);
        } else {
            char buf[256];
            size_t n = fread(buf, 1, sizeof buf - 1, f);
            buf[n] = 0;
            printf("read %zu bytes: %s\n", n, buf);
        }
        return fclose(f) == 0 ? 0 : fail("close", path);
    }
    if (!strcmp(op, "rawread")) {
        __wasi_fd_t fd;
        __wasi_errno_t e = __wasi_path_open(3, 0, path, 0, __WASI_RIGHTS_FD_READ, 0, 0, &fd);
        if (e) {
            errno = e;
            return fail("open", path);
        }
        char buf[256];
        ssize_t n = read(fd, buf, sizeof buf - 1);
        if (n < 0) return fail("read", path);
        buf[n] = 0;
        printf("read %zd bytes: %s\n", n, buf);
        return 0;
    }
    if (!strcmp(op, "create") || !strcmp(op, "append")) {
        int fd = open(path, O_WRONLY | O_CREAT | (!strcmp(op, "append") ? O_APPEND : O_TRUNC), 0644);
        if (fd < 0) return fail(op, path);
        if (write(fd, "guest", 5) != 5) return fail("write", path);
        close(fd);
    } else if (!strcmp(op, "mkdir")) {
        if (mkdir(path, 0755)) return fail(op, path);
    } else if (!strcmp(op, "rmdir")) {
        if (rmdir(path)) return fail(op, path);
    } else if (!strcmp(op, "unlink")) {
        if (unlink(path)) return fail(op, path);
    } else if (!strcmp(op, "stat") || !strcmp(op, "lstat")) {
        struct stat st;
        if ((!strcmp(op, "stat") ? stat : lstat)(path, &st)) return fail(op, path);
        printf("ok size %lld\n", (long long)st.st_size);
        return 0;
    } else if (!strcmp(op, "readlink")) {
        char buf[256];
        ssize_t n = readlink(path, buf, sizeof buf - 1);
        if (n < 0) return fail(op, path);
        buf[n] = 0;
        printf("ok %s\n", buf);
        return 0;
    } else if (!strcmp(op, "utime")) {
        struct timeval tv[2] = {{0, 0}, {0, 0}};
        if (utimes(path, tv)) return fail(op, path);
    } else if (!strcmp(op, "truncate")) {
        if (truncate(path, 0)) return fail(op, path);
    } else if (!strcmp(op, "list")) {
        DIR *d = opendir(path);
        if (!d) return fail(op, path);
        for (struct dirent *e; (e = readdir(d));) printf("entry %s\n", e->d_name);
        closedir(d);
    } else if (!strcmp(op, "rename")) {
        if (rename(path, arg)) return fail(op, path);
    } else if (!strcmp(op, "link")) {
        if (link(path, arg)) return fail(op, path);
    } else if (!strcmp(op, "symlink")) {
        if (symlink(path, arg)) return fail(op, arg);
    } else {
        return 2;
    }
    printf("ok\n");
    return 0;
}
