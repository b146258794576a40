import { ConflictError } from '../errors/errors';

/** A draft's run ran steps no version holds: only the current definition can run again in its place (a rerun or a replay). */
export const draftRunHasNoVersion = () =>
  new ConflictError("This run tested a draft, whose steps are no version's: run it again with the current definition, or test the draft again", 'draft_run');
