/* SPDX-License-Identifier: MIT */
#pragma once

/* Pure parsers for the files of the host's tuning (core/tuning.h): PCIe link attributes, the
 * PCIe Device Control register, /proc/swaps, the kernel command line's IOMMU parameters and an
 * IOMMU group's default domain type. No I/O: callers pass the text and name the file. */

#include <stdint.h>

#include "core/tuning.h"

/* current_link_speed and max_link_speed: "16.0 GT/s PCIe" (kernels since 5.x), "8 GT/s"
 * (older ones), into MT/s (16000). -EINVAL for anything else, "Unknown" included. */
int pcie_speed_parse(const char *s, unsigned *ret_mts);
/* current_link_width and max_link_width: a lane count, 0 to 63 (the register's six bits). */
int pcie_width_parse(const char *s, int *ret);
/* The Device Control register of the PCI Express capability: Max_Read_Request_Size (bits
 * 14:12) and Max_Payload_Size (7:5), each 128 << field bytes. -EINVAL for a reserved field
 * (6 or 7), which is also what a device that reads as all ones gives. */
int pcie_devctl_decode(uint16_t devctl, int *ret_max_read_request, int *ret_max_payload);

/* /proc/swaps: its header, then "Filename Type Size Used Priority" lines (sizes in KiB, a
 * file name with its blanks escaped as \040). The sum of the sizes in bytes: 0 with no line
 * after the header. -EINVAL for a missing header or a malformed line, -ERANGE past 2^64. */
int swaps_parse(const char *text, uint64_t *ret_bytes);

/* What the kernel command line says of the IOMMU: iommu=pt|nopt|off (comma lists as x86 takes
 * them), iommu.passthrough=0|1, intel_iommu=off, amd_iommu=off; the last one wins, as the kernel
 * parses them in order. *ret_param points at the deciding word inside `cmdline`, *ret_len its
 * length. -ENOENT when none of them is there. */
int cmdline_iommu(const char *cmdline, enum iommu_mode *ret, const char **ret_param, size_t *ret_len);
/* An IOMMU group's type file: "identity" is passthrough, "DMA" and "DMA-FQ" are translated.
 * -EINVAL for the rest ("blocked", "unmanaged": a group handed to VFIO says nothing of the
 * default). */
int iommu_type_parse(const char *s, enum iommu_mode *ret);
