/* ks-runner.h: the one worker thread that does a pipeline's engine work.
 *
 * An engine runs work for one thread at a time, so every task that touches
 * one runs here, in the order it was queued: uploads, device switches, live
 * runs, measurements, decoding. Live runs are coalesced: a live task that has
 * not started yet is replaced by a newer one, which returns
 * G_IO_ERROR_CANCELLED, so dragging a slider runs the newest value and never
 * a backlog of stale ones. Long work (a Measure of 10 000 repeats) calls
 * ks_runner_run_pending_live between its repeats, so that a change made
 * meanwhile still reaches the screen.
 *
 * The tasks are ordinary GTasks: their callbacks run in the context the task
 * was created in (the main loop), as with g_task_run_in_thread. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define KS_TYPE_RUNNER (ks_runner_get_type ())
G_DECLARE_FINAL_TYPE (KsRunner, ks_runner, KS, RUNNER, GObject)

KsRunner   *ks_runner_new              (void);
/* Runs func (task, source, task data, cancellable) on the worker after
 * everything queued before it. A task cancelled before it starts returns
 * G_IO_ERROR_CANCELLED without running. */
void        ks_runner_queue            (KsRunner *self, GTask *task, GTaskThreadFunc func);
/* The same, in the live slot: replaces the live task still waiting, if any. */
void        ks_runner_queue_live       (KsRunner *self, GTask *task, GTaskThreadFunc func);
/* On the worker thread only, from inside a task: runs the waiting live task
 * now. TRUE when there was one. */
gboolean    ks_runner_run_pending_live (KsRunner *self);
/* Whether the calling thread is the runner's worker. */
gboolean    ks_runner_is_worker        (KsRunner *self);

G_END_DECLS
