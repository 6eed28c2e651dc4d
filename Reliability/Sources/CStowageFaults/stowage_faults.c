#include "stowage_faults.h"
