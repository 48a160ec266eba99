// SPDX-License-Identifier: GPL-2.0
/* The workloads sac.run= can name, one line each. */
#include "workloads.h"

const struct sac_workload sac_workloads[] = {
	{ "boot", wl_boot },
	{ "blk", wl_blk },
	{ "nvme", wl_nvme },
	{ "net", wl_net },
	{ "iova-bench", wl_iova },
	{ "edu-lying", wl_edu_lying },
	{ "edu-honest", wl_edu_honest },
	{ "edu-listed", wl_edu_listed },
	{ "edu-declared", wl_edu_declared },
	{ "sac-list-bad", wl_sac_list_bad },
	{ "sac-race", wl_sac_race },
	{ "edu-pressure", wl_edu_pressure },
	{ "edu-pressure-group", wl_edu_pressure_group },
	{ "provoke", wl_provoke },
	{ "installed-boot", wl_installed_boot },
	{ "installed-fw", wl_installed_fw },
	{ "installed-blk", wl_root_blk },
};

const size_t sac_nworkloads = ARRAY_SIZE(sac_workloads);
