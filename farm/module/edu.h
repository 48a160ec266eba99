/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QEMU's edu PCI device, as the farm knows it: the IDs the sac_edu
 * driver binds and that the guest agent (farm/guest, through agent.h)
 * looks for on the PCI bus to find the edu devices a workload booted
 * with. One definition shared by the module and the agent, so the two
 * cannot disagree about which device is edu. Plain #defines: this file
 * is built both by kbuild (copied next to the module's sources) and as
 * userspace C.
 */
#ifndef SAC_EDU_H
#define SAC_EDU_H

#define EDU_VENDOR_ID	0x1234	/* QEMU's; not in 6.1's pci_ids.h */
#define EDU_DEVICE_ID	0x11e8

#endif /* SAC_EDU_H */
