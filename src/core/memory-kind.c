/* SPDX-License-Identifier: MIT */
#include <stddef.h>

#include "core/memory-kind.h"

const char *memory_kind_name(unsigned kinds) {
        switch (kinds) {
        case MEMORY_DRAM:
                return "DRAM";
        case MEMORY_HBM:
                return "HBM";
        case MEMORY_GPU:
                return "GPUMemory";
        case MEMORY_SPM:
                return "SPM";
        case MEMORY_NVM:
                return "NVM";
        case MEMORY_CXL: /* hwloc's: CXL memory is DRAM until something says otherwise */
        case MEMORY_CXL | MEMORY_DRAM:
                return "CXL-DRAM";
        case MEMORY_CXL | MEMORY_HBM:
                return "CXL-HBM";
        case MEMORY_CXL | MEMORY_GPU:
                return "CXL-GPUMemory";
        case MEMORY_CXL | MEMORY_SPM:
                return "CXL-SPM";
        case MEMORY_CXL | MEMORY_NVM:
                return "CXL-NVM";
        default:
                return NULL;
        }
}
