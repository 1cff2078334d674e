/* SPDX-License-Identifier: MIT */
/*
 * stats.h - the statistics service (stats.c): a shared-memory area per
 * process and a thread that answers tools (uslabinfo, uslabtop) from
 * outside the process.  The protocol is in stats_proto.h.
 */
#ifndef USLAB_MM_STATS_H
#define USLAB_MM_STATS_H

/*
 * Start the service thread if it should run and does not yet: called by
 * slab_init_slow() once the slab layer is up, and by stats.c's constructor
 * and fork handler.  Takes no lock of the library; returns at once when
 * the service runs, failed, or is off (USLAB_OPTIONS stats=off).
 */
void stats_start(void);

#endif /* USLAB_MM_STATS_H */
