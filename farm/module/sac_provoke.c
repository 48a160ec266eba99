// SPDX-License-Identifier: GPL-2.0
/*
 * sac_provoke: kernel trouble on demand, for the farm's fault-injection
 * suite (tests/faults/). The agent's "provoke" workload loads it with
 * class=NAME and the module makes the kernel report that one kind of
 * trouble in its own words, the way a real driver bug would, so that what
 * the classifier makes of it (farm/PROTOCOL.md, "Outcomes") is tested on
 * a real kernel's console:
 *
 *   hung-task    the loading task sleeps uninterruptibly for secs seconds
 *                (the agent lowers hung_task_timeout_secs first)
 *   soft-lockup  spins with preemption off for secs seconds (the agent
 *                lowers watchdog_thresh first)
 *   rcu-stall    asks for a grace period from inside an RCU read-side
 *                critical section and spins there, preemption off, for
 *                secs seconds (the agent lowers rcu_cpu_stall_timeout;
 *                needs a second CPU to run the grace-period kthread)
 *   err-flood    logs count err-level lines
 *   log-flood    logs count lines of about 128 bytes at info level: a
 *                printk storm
 *   panic        panic()
 *   oops         a NULL pointer write
 *   warn         WARN()
 *   probe-failed a driver for QEMU's edu device whose probe fails with -EIO
 *   dma-api      a driver for edu that unmaps a streaming mapping with half
 *                its size (CONFIG_DMA_API_DEBUG reports it)
 *   qemu-crash   a driver for edu that points edu's DMA engine past the end
 *                of its buffer: QEMU 7.2's hw_error() aborts the emulator
 *
 * Loading does the deed and succeeds (unless it kills the task or the
 * machine); the agent unloads the module again.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/iopoll.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "edu.h"

#define SAC_PROVOKE_MAX_SECS	120
#define SAC_PROVOKE_MAX_COUNT	1000000

static char *provoke_class;
module_param_named(class, provoke_class, charp, 0444);
MODULE_PARM_DESC(class, "what to provoke: hung-task, soft-lockup, rcu-stall, err-flood, log-flood, panic, oops, warn, probe-failed, dma-api, qemu-crash");

static unsigned int secs = 8;
module_param(secs, uint, 0444);
MODULE_PARM_DESC(secs, "how long a hang, lockup or stall lasts, in seconds");

static unsigned int count = 40;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "lines an err-flood or log-flood logs");

/* Read once through a volatile access: the compiler cannot see it is NULL */
static int *sac_provoke_null;

static void sac_provoke_spin(unsigned int s)
{
	ktime_t end = ktime_add_ms(ktime_get(), (u64)s * MSEC_PER_SEC);

	while (ktime_before(ktime_get(), end))
		cpu_relax();
}

/* The task that loads the module is the one the checker finds blocked. */
static void sac_provoke_hung_task(void)
{
	msleep(secs * MSEC_PER_SEC);
}

static void sac_provoke_soft_lockup(void)
{
	preempt_disable();
	sac_provoke_spin(secs);
	preempt_enable();
}

/*
 * The stall checker times a grace period from its start, so wait out the
 * one in flight (it may have started under the old, longer timeout), then
 * ask for a new one from inside a read-side critical section this CPU
 * never leaves while it spins: the grace-period kthread starts it on
 * another CPU, and it cannot end. On one CPU the kthread would never run.
 */
static void sac_provoke_rcu_stall(void)
{
	synchronize_rcu();
	preempt_disable();
	rcu_read_lock();
	start_poll_synchronize_rcu();
	sac_provoke_spin(secs);
	rcu_read_unlock();
	preempt_enable();
}

static void sac_provoke_err_flood(void)
{
	unsigned int i;

	for (i = 0; i < count; i++)
		pr_err("err-flood: error %u of %u\n", i + 1, count);
}

static void sac_provoke_log_flood(void)
{
	unsigned int i;

	for (i = 0; i < count; i++) {
		pr_info("log-flood: line %7u of %7u: %s\n", i + 1, count,
			"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
		if (!(i % 64))
			cond_resched();
	}
}

/* ---- the edu driver of probe-failed, dma-api and qemu-crash ---- */

/* The bug: half the size it mapped. DMA-API debugging says so. */
static int sac_provoke_dma_api(struct pci_dev *pdev)
{
	struct device *dev = &pdev->dev;
	dma_addr_t addr;
	void *buf;
	int ret;

	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(32));
	if (ret)
		return ret;
	buf = kzalloc(SZ_4K, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	addr = dma_map_single(dev, buf, SZ_4K, DMA_TO_DEVICE);
	if (dma_mapping_error(dev, addr)) {
		kfree(buf);
		return -ENOMEM;
	}
	dma_unmap_single(dev, addr, SZ_4K / 2, DMA_TO_DEVICE);
	kfree(buf);
	return 0;
}

/*
 * A transfer that runs past the end of edu's 4 KiB buffer. QEMU checks the
 * range before it touches memory, so no DMA address is needed: it calls
 * hw_error(), which aborts the emulator. If it ever does not, say so.
 */
static int sac_provoke_qemu_crash(struct pci_dev *pdev)
{
	void __iomem *regs;
	u32 val;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	regs = pcim_iomap(pdev, 0, 0);
	if (!regs)
		return -ENOMEM;
	dev_info(&pdev->dev, "DMA past edu's buffer: QEMU should abort now\n");
	writeq(0, regs + EDU_REG_DMA_SRC);
	writeq(EDU_BUF_BASE + EDU_BUF_SIZE - SZ_64, regs + EDU_REG_DMA_DST);
	writeq(SZ_1K, regs + EDU_REG_DMA_CNT);
	writel(EDU_DMA_RUN, regs + EDU_REG_DMA_CMD);
	ret = readl_poll_timeout(regs + EDU_REG_DMA_CMD, val,
				 !(val & EDU_DMA_RUN), 1000,
				 (u64)secs * USEC_PER_SEC);
	dev_err(&pdev->dev, "QEMU survived a DMA past edu's buffer (%s)\n",
		ret ? "still running" : "done");
	return 0;
}

static int sac_provoke_probe(struct pci_dev *pdev,
			     const struct pci_device_id *id)
{
	if (!strcmp(provoke_class, "probe-failed"))
		return -EIO;
	if (!strcmp(provoke_class, "dma-api"))
		return sac_provoke_dma_api(pdev);
	return sac_provoke_qemu_crash(pdev);
}

static void sac_provoke_remove(struct pci_dev *pdev)
{
}

static const struct pci_device_id sac_provoke_ids[] = {
	{ PCI_DEVICE(EDU_VENDOR_ID, EDU_DEVICE_ID) },
	{ }
};

/*
 * No MODULE_DEVICE_TABLE: the agent loads this driver with the job's
 * parameters. Without a modalias, udev in an installed system (where
 * every farm module sits in lib/modules) leaves edu to sac_fwload.
 */

static struct pci_driver sac_provoke_driver = {
	.name		= KBUILD_MODNAME,
	.id_table	= sac_provoke_ids,
	.probe		= sac_provoke_probe,
	.remove		= sac_provoke_remove,
};

static bool sac_provoke_pci;

static int __init sac_provoke_init(void)
{
	static const char * const pci_classes[] = {
		"probe-failed", "dma-api", "qemu-crash",
	};
	const char *c = provoke_class ? provoke_class : "";
	unsigned int i;

	if (secs > SAC_PROVOKE_MAX_SECS || count > SAC_PROVOKE_MAX_COUNT) {
		pr_err("secs=%u count=%u: at most %u and %u\n", secs, count,
		       SAC_PROVOKE_MAX_SECS, SAC_PROVOKE_MAX_COUNT);
		return -EINVAL;
	}
	pr_info("provoking %s\n", c);
	if (!strcmp(c, "hung-task")) {
		sac_provoke_hung_task();
	} else if (!strcmp(c, "soft-lockup")) {
		sac_provoke_soft_lockup();
	} else if (!strcmp(c, "rcu-stall")) {
		sac_provoke_rcu_stall();
	} else if (!strcmp(c, "err-flood")) {
		sac_provoke_err_flood();
	} else if (!strcmp(c, "log-flood")) {
		sac_provoke_log_flood();
	} else if (!strcmp(c, "panic")) {
		panic("sac_provoke: a provoked panic");
	} else if (!strcmp(c, "oops")) {
		*READ_ONCE(sac_provoke_null) = 1;
	} else if (!strcmp(c, "warn")) {
		WARN(1, "sac_provoke: a provoked warning\n");
	} else {
		for (i = 0; i < ARRAY_SIZE(pci_classes); i++)
			if (!strcmp(c, pci_classes[i]))
				break;
		if (i == ARRAY_SIZE(pci_classes)) {
			pr_err("class=%s: unknown\n", c);
			return -EINVAL;
		}
		sac_provoke_pci = true;
		return pci_register_driver(&sac_provoke_driver);
	}
	pr_info("provoked %s\n", c);
	return 0;
}
module_init(sac_provoke_init);

static void __exit sac_provoke_exit(void)
{
	if (sac_provoke_pci)
		pci_unregister_driver(&sac_provoke_driver);
}
module_exit(sac_provoke_exit);

MODULE_DESCRIPTION("Kernel trouble on demand for the farm's fault-injection suite");
MODULE_LICENSE("GPL");
