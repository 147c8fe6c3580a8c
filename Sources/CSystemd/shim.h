#ifndef MARKETALERTD_CSYSTEMD_SHIM_H
#define MARKETALERTD_CSYSTEMD_SHIM_H
// Swift calls the plain sd_journal_sendv symbol; the location fields are added by the Swift side.
#define SD_JOURNAL_SUPPRESS_LOCATION 1
#include <systemd/sd-journal.h>
#include <systemd/sd-daemon.h>
#include <sys/uio.h>
#endif
