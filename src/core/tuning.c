/* SPDX-License-Identifier: MIT */
#include "basic/util.h"
#include "core/tuning.h"

void pcie_link_done(struct pcie_link *l) {
        free(l->speed);
        free(l->max_speed);
        pcie_link_init(l);
}

const char *pcie_config_why(enum pcie_config c) {
        switch (c) {
        case PCIE_CONFIG_ABSENT:
                return "no config space in this sysfs";
        case PCIE_CONFIG_SHORT:
                return "sysfs gives a reader other than root only the first 64 bytes of config space: run (or capture) "
                       "as root";
        case PCIE_CONFIG_NO_CAP:
                return "no PCI Express capability (a conventional PCI function)";
        case PCIE_CONFIG_INVALID:
                return "Device Control holds reserved sizes (the device stopped answering)";
        case PCIE_CONFIG_UNREAD:
                return "libpci could not read it";
        default:
                return NULL;
        }
}

const char *pcie_config_to_string(enum pcie_config c) {
        static const char *const names[] = {
                [PCIE_CONFIG_NOT_READ] = "not-read",    [PCIE_CONFIG_READ] = "read",
                [PCIE_CONFIG_ABSENT] = "absent",        [PCIE_CONFIG_SHORT] = "short",
                [PCIE_CONFIG_NO_CAP] = "no-capability", [PCIE_CONFIG_INVALID] = "invalid",
                [PCIE_CONFIG_UNREAD] = "unread",
        };
        return names[c];
}

const char *iommu_mode_to_string(enum iommu_mode m) {
        static const char *const names[] = {[IOMMU_UNKNOWN] = NULL,
                                            [IOMMU_OFF] = "off",
                                            [IOMMU_PASSTHROUGH] = "passthrough",
                                            [IOMMU_TRANSLATED] = "translated"};
        return names[m];
}

struct host_tuning *host_tuning_free(struct host_tuning *h) {
        if (!h)
                return NULL;
        free(h->cpufreq_driver);
        for (size_t i = 0; i < h->n_governors; i++)
                free(h->governors[i].name);
        free(h->governors);
        for (size_t i = 0; i < h->n_idle_states; i++)
                free(h->idle_states[i].name);
        free(h->idle_states);
        free(h->kernel);
        free(h->iommu_how);
        free(h);
        return NULL;
}

void host_tuning_add_governor(struct host_tuning *h, const char *name, unsigned cpu) {
        for (size_t i = 0; i < h->n_governors; i++)
                if (streq(h->governors[i].name, name)) {
                        cpuset_set(&h->governors[i].cpus, cpu);
                        return;
                }
        h->governors = xrealloc(h->governors, (h->n_governors + 1) * sizeof(*h->governors));
        struct governor_cpus *g = &h->governors[h->n_governors++];
        *g = (struct governor_cpus){.name = xstrdup(name)};
        cpuset_set(&g->cpus, cpu);
}

/* "16.0 GT/s": how the kernel writes a speed. */
