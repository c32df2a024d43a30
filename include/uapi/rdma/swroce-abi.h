/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * The contract between swroce.ko and libswroce (the rdma-core provider).
 *
 * Layout rules, which every structure below follows:
 *  - only fixed-width __u8/__u16/__u32/__aligned_u64 types, no pointers,
 *    no kernel types, no enums as field types: the layout is identical on
 *    32- and 64-bit user space;
 *  - every structure is a multiple of 8 bytes and has no implicit padding;
 *    holes are named reserved_* and must be zero;
 *  - command and response structures start with comp_mask. A bit in a
 *    command's comp_mask announces an optional field the provider filled
 *    in; a bit in a response's comp_mask announces a field the kernel
 *    filled in. The kernel rejects command bits it does not know with
 *    EOPNOTSUPP, and non-zero reserved fields or non-zero bytes beyond the
 *    structure it knows with EINVAL;
 *  - new fields are only ever appended. The kernel writes back at most the
 *    response length the provider passed, so an older provider keeps
 *    working against a newer kernel of the same SWROCE_ABI_VERSION.
 *
 * SWROCE_ABI_VERSION changes only for an incompatible change. It is
 * published as the uverbs device's abi_version (libibverbs refuses to bind
 * a provider whose supported range does not include it) and the provider
 * repeats it in swroce_alloc_ucontext_cmd, where the kernel checks it again.
 *
 * Driver-private command data follows the core uverbs command with no
 * padding; driver-private response data likewise follows the core response.
 */
#ifndef SWROCE_ABI_USER_H
#define SWROCE_ABI_USER_H

#include <linux/types.h>

#define SWROCE_ABI_VERSION 1

/*
 * Every swroce ib_device carries this sysfs attribute group
 * (/sys/class/infiniband/<ibdev>/swroce/): the provider recognises a swroce
 * device by it, whatever name the administrator gave the device.
 */
#define SWROCE_SYSFS_GROUP "swroce"

/* ibv_get_context(): no optional command fields are defined yet */
struct swroce_alloc_ucontext_cmd {
	__u32 comp_mask;
	__u32 abi_version;	/* the SWROCE_ABI_VERSION the provider speaks */
};

/* Set in swroce_alloc_ucontext_resp.device_caps */
enum swroce_device_cap {
	/* reserved for the data path; none of them is offered yet */
	SWROCE_DEVICE_CAP_NONE = 0,
};

struct swroce_alloc_ucontext_resp {
	__u32 comp_mask;
	__u32 abi_version;	/* the SWROCE_ABI_VERSION of the kernel */
	__u32 device_caps;	/* enum swroce_device_cap */
	__u32 reserved_0;
};

/* ibv_alloc_pd(): no command data; the response names the PD */
struct swroce_alloc_pd_resp {
	__u32 comp_mask;
	__u32 pdn;		/* device-wide PD number, for diagnostics */
};

#endif /* SWROCE_ABI_USER_H */
