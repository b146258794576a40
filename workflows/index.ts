// Every workflow the worker runs. Workflow code imports only @temporalio/workflow
// and types from activities/, so Temporal's sandbox can replay it deterministically.
export { diagnosticsWorkflow } from './diagnostics';
export { runWorkflowDefinition } from './interpreter';
export { runLoopBatch } from './loop-batch';
export { runAgentChild } from './agent-step';
export { dataFeedScheduledSync, dataFeedSync } from './data-feed-sync';
export { runScheduledTrigger } from './scheduled-run';
export { pruneExpiredExecutions } from './retention';
export { replayBulk } from './bulk-replay';
