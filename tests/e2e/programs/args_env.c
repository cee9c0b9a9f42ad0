/* Prints its arguments (not argv[0]) and the environment variables named
 * in the ARGS_ENV_NAMES variable (comma-separated). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    printf("argc=%d\n", argc);
    for (int i = 1; i < argc; i++) printf("argv[%d]=%s\n", i, argv[i]);
    const char *names = getenv("ARGS_ENV_NAMES");
    if (names) {
        char copy[512];
        snprintf(copy, sizeof copy, "%s", names);
        for (char *n = strtok(copy, ","); n; n = strtok(NULL, ",")) {
            const char *v = getenv(n);
            printf("%s=%s\n", n, v ? v : "(unset)");
        }
    }
    return 0;
}
