// The bare-Temporal baseline of `npm run bench:webhook`: a workflow that does nothing.
export async function emptyWorkflow(): Promise<string> {
  return 'done';
}
