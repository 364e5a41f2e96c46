#ifndef TARMAC_SIM_PLOT_H
#define TARMAC_SIM_PLOT_H

#include "studies/studies.h"

#endif
