#include "config.h"

#include "ks-runner.h"

typedef struct
{
  GTask *task;
  GTaskThreadFunc func;
} Job;

struct _KsRunner
{
  GObject parent_instance;

  /* owned */
  GThread *thread;

  /* shared with the worker, under lock */
  GMutex lock;
  GCond cond;
  GQueue jobs;        /* Job *, oldest first */
  Job *live;          /* the live job waiting in jobs, or NULL */
  gboolean quit;
};

G_DEFINE_FINAL_TYPE (KsRunner, ks_runner, G_TYPE_OBJECT)

static Job *
job_new (GTask *task, GTaskThreadFunc func)
{
  Job *job = g_new (Job, 1);

  job->task = g_object_ref (task);
  job->func = func;
  return job;
}

static void
job_free (Job *job)
{
  g_object_unref (job->task);
  g_free (job);
}

static void
job_cancel (Job *job, const char *why)
{
  g_task_return_new_error (job->task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s", why);
  job_free (job);
}

static void
job_run (Job *job)
{
  GTask *task = job->task;

  if (!g_task_return_error_if_cancelled (task))
    job->func (task, g_task_get_source_object (task), g_task_get_task_data (task),
               g_task_get_cancellable (task));
  job_free (job);
}

static gpointer
worker_main (gpointer user_data)
{
  KsRunner *self = user_data;

  for (;;)
    {
      Job *job;

      g_mutex_lock (&self->lock);
      while (!self->quit && g_queue_is_empty (&self->jobs))
        g_cond_wait (&self->cond, &self->lock);
      job = self->quit ? NULL : g_queue_pop_head (&self->jobs);
      if (job != NULL && job == self->live)
        self->live = NULL;
      g_mutex_unlock (&self->lock);
      if (job == NULL)
        return NULL;
      job_run (job);
    }
}

static void
ks_runner_dispose (GObject *object)
{
  KsRunner *self = KS_RUNNER (object);
  Job *job;

  if (self->thread != NULL)
    {
      g_mutex_lock (&self->lock);
      self->quit = TRUE;
      g_cond_signal (&self->cond);
      g_mutex_unlock (&self->lock);
      /* The running task finishes first: engines have no way to stop a kernel. */
      g_thread_join (g_steal_pointer (&self->thread));
    }
  self->live = NULL;
  while ((job = g_queue_pop_head (&self->jobs)) != NULL)
    job_cancel (job, "The pipeline was closed");
  G_OBJECT_CLASS (ks_runner_parent_class)->dispose (object);
}

static void
ks_runner_finalize (GObject *object)
{
  KsRunner *self = KS_RUNNER (object);

  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  G_OBJECT_CLASS (ks_runner_parent_class)->finalize (object);
}

static void
ks_runner_class_init (KsRunnerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ks_runner_dispose;
  object_class->finalize = ks_runner_finalize;
}

static void
ks_runner_init (KsRunner *self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  g_queue_init (&self->jobs);
  self->thread = g_thread_new ("ks-runner", worker_main, self);
}

KsRunner *
ks_runner_new (void)
{
  return g_object_new (KS_TYPE_RUNNER, NULL);
}

void
ks_runner_queue (KsRunner *self, GTask *task, GTaskThreadFunc func)
{
  g_return_if_fail (KS_IS_RUNNER (self) && G_IS_TASK (task) && func != NULL);
  g_mutex_lock (&self->lock);
  g_queue_push_tail (&self->jobs, job_new (task, func));
  g_cond_signal (&self->cond);
  g_mutex_unlock (&self->lock);
}

void
ks_runner_queue_live (KsRunner *self, GTask *task, GTaskThreadFunc func)
{
  Job *stale;

  g_return_if_fail (KS_IS_RUNNER (self) && G_IS_TASK (task) && func != NULL);
  g_mutex_lock (&self->lock);
  stale = self->live;
  if (stale != NULL)
    g_queue_remove (&self->jobs, stale);
  self->live = job_new (task, func);
  g_queue_push_tail (&self->jobs, self->live);
  g_cond_signal (&self->cond);
  g_mutex_unlock (&self->lock);
  if (stale != NULL)
    job_cancel (stale, "A newer run replaced this one");
}

gboolean
ks_runner_run_pending_live (KsRunner *self)
{
  Job *job;

  g_return_val_if_fail (KS_IS_RUNNER (self), FALSE);
  g_return_val_if_fail (ks_runner_is_worker (self), FALSE);
  g_mutex_lock (&self->lock);
  job = self->live;
  if (job != NULL)
    g_queue_remove (&self->jobs, job);
  self->live = NULL;
  g_mutex_unlock (&self->lock);
  if (job == NULL)
    return FALSE;
  job_run (job);
  return TRUE;
}

gboolean
ks_runner_is_worker (KsRunner *self)
{
  g_return_val_if_fail (KS_IS_RUNNER (self), FALSE);
  return g_thread_self () == self->thread;
}
