// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* placeholder: being written (see swr_qp.h) */
#include "swr_qp.h"
