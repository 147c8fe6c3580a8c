#ifndef MARKETALERTD_CZLIB_SHIM_H
#define MARKETALERTD_CZLIB_SHIM_H
#include <zlib.h>
#endif
