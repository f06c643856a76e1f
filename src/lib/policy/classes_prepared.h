/*
 * The classes' rows walked ahead of the cage (see classes_prepared.c):
 * announced on the caller's thread before the thread that walks them
 * starts, so that a cage made meanwhile waits for that walk instead of
 * making its own; cancelled when the thread could not be started.
 */
#ifndef PROCAGE_CLASSES_PREPARED_H
#define PROCAGE_CLASSES_PREPARED_H

void classes_prepare_announce(void);
void classes_prepare(const char *home, const char *runtime_dir);
void classes_prepare_cancel(void);

#endif
