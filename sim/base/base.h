#ifndef TARMAC_SIM_BASE_H
#define TARMAC_SIM_BASE_H

#include "status.h"

#endif
