/* SPDX-License-Identifier: MIT */
#include <dlfcn.h>
#include <stdarg.h>

#include "basic/dlopen-util.h"
#include "basic/log.h"

int dlopen_many_sym(void **handle, const char *soname, const char *package, ...) {
        va_list ap;

        if (*handle)
                return 0;

        void *dl = dlopen(soname, RTLD_LAZY | RTLD_NODELETE);
        if (!dl)
                return log_error_errno(-EOPNOTSUPP, "%s is not available (install %s): %s", soname, package, dlerror());

        va_start(ap, package);
        for (;;) {
                void **slot = va_arg(ap, void **);
                if (!slot)
                        break;
                const char *name = va_arg(ap, const char *);
                *slot = dlsym(dl, name);
                if (!*slot) {
                        va_end(ap);
                        dlclose(dl);
                        return log_error_errno(-EOPNOTSUPP, "%s lacks %s: %s", soname, name, dlerror());
                }
        }
        va_end(ap);
        *handle = dl;
        return 0;
}
