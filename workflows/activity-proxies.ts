import { proxyActivities, proxyLocalActivities, type ActivityOptions, type LocalActivityOptions } from '@temporalio/workflow';
import type { Activities } from '../activities';

/**
 * The activities, typed, with the options of one call. Most calls here name
 * themselves (an activity id, a summary), so each builds its own proxy: a
 * plain object, no command until an activity is called, and that command is
 * exactly what the options say. Not `executeWithOptions`: it is marked
 * experimental in SDK 1.24 and merges the options into the proxy's.
 */
export const activitiesWith = (options: ActivityOptions) => proxyActivities<Activities>(options);

/** The local-activity counterpart of `activitiesWith`. */
export const localActivitiesWith = (options: LocalActivityOptions) => proxyLocalActivities<Activities>(options);
