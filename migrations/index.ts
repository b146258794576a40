import { CreateTenancy1763800000000 } from './1763800000000-CreateTenancy';
import { CreateAccessTokens1763800000100 } from './1763800000100-CreateAccessTokens';
import { CreateOrganizationKeys1763800000200 } from './1763800000200-CreateOrganizationKeys';
import { CreateConnections1763800000300 } from './1763800000300-CreateConnections';
import { CreateEnvironments1763800000400 } from './1763800000400-CreateEnvironments';
import { LockMemberIssuedTokens1763800000500 } from './1763800000500-LockMemberIssuedTokens';
import { CreateDataStoreRecords1763800000600 } from './1763800000600-CreateDataStoreRecords';
import { CreateWorkflows1763800000700 } from './1763800000700-CreateWorkflows';
import { CreateWebhookTriggers1763800000800 } from './1763800000800-CreateWebhookTriggers';
import { CreateExecutions1763800000900 } from './1763800000900-CreateExecutions';
import { CreateDataSources1763800001000 } from './1763800001000-CreateDataSources';
import { BindTokensToMemberships1763800001100 } from './1763800001100-BindTokensToMemberships';
import { CreateInvitations1763800001150 } from './1763800001150-CreateInvitations';
import { ExecutionValueSizes1763800001200 } from './1763800001200-ExecutionValueSizes';
import { EnvironmentVariableSecretFlag1763800001300 } from './1763800001300-EnvironmentVariableSecretFlag';
import { CreateExecutionAnswers1763800001400 } from './1763800001400-CreateExecutionAnswers';
import { CreateDashboards1763800001500 } from './1763800001500-CreateDashboards';
import { CreatePackages1763800001600 } from './1763800001600-CreatePackages';
import { CreateDataStoreShares1763800001700 } from './1763800001700-CreateDataStoreShares';
import { UniqueFeedSources1763800001800 } from './1763800001800-UniqueFeedSources';
import { ScheduleAndAgentRuns1763800001900 } from './1763800001900-ScheduleAndAgentRuns';
import { CreateScheduleTriggers1763800002000 } from './1763800002000-CreateScheduleTriggers';
import { NotifyAuthChanges1763800002100 } from './1763800002100-NotifyAuthChanges';
import { SharesEndWithGranters1763800002200 } from './1763800002200-SharesEndWithGranters';
import { SealedStepOutputs1763800002300 } from './1763800002300-SealedStepOutputs';
import { ExecutionsByAge1763800002400 } from './1763800002400-ExecutionsByAge';
import { ConnectionTokenRefreshLease1763800002500 } from './1763800002500-ConnectionTokenRefreshLease';
import { CreateFeedSyncs1763800002600 } from './1763800002600-CreateFeedSyncs';
import { CreateFeedSyncSeen1763800002700 } from './1763800002700-CreateFeedSyncSeen';
import { ExecutionsByMode1763800002800 } from './1763800002800-ExecutionsByMode';
import { CreateConsoleSessions1763800002900 } from './1763800002900-CreateConsoleSessions';
import { ExecutionWaits1763800003000 } from './1763800003000-ExecutionWaits';
import { ChildAndErrorRuns1763800003100 } from './1763800003100-ChildAndErrorRuns';
import { ReplayFromStep1763800003200 } from './1763800003200-ReplayFromStep';
import { ExecutionLoopItems1763800003300 } from './1763800003300-ExecutionLoopItems';
import { VerifiedWebhooks1763800003400 } from './1763800003400-VerifiedWebhooks';
import { ExecutionsByDelivery1763800003500 } from './1763800003500-ExecutionsByDelivery';
import { FeedSyncsRunning1763800003600 } from './1763800003600-FeedSyncsRunning';
import { WaitEventClaims1763800003700 } from './1763800003700-WaitEventClaims';
import { DefinitionsAsWritten1763800003800 } from './1763800003800-DefinitionsAsWritten';
import { WorkflowDrafts1763800003900 } from './1763800003900-WorkflowDrafts';
import { TextWidgets1763800004000 } from './1763800004000-TextWidgets';
import { TokenPermissions1763800004100 } from './1763800004100-TokenPermissions';
import { StepUsage1763800004200 } from './1763800004200-StepUsage';
import { BuiltInRunSources1763800004250 } from './1763800004250-BuiltInRunSources';
import { OrganizationLlmPrices1763800004300 } from './1763800004300-OrganizationLlmPrices';
import { TriggerTraceContext1763800004400 } from './1763800004400-TriggerTraceContext';

/** Every migration, in order. Listed explicitly so the same list works under tsx, jest and a build. */
export const migrations = [
  CreateTenancy1763800000000,
  CreateAccessTokens1763800000100,
  CreateOrganizationKeys1763800000200,
  CreateConnections1763800000300,
  CreateEnvironments1763800000400,
  LockMemberIssuedTokens1763800000500,
  CreateDataStoreRecords1763800000600,
  CreateWorkflows1763800000700,
  CreateWebhookTriggers1763800000800,
  CreateExecutions1763800000900,
  CreateDataSources1763800001000,
  BindTokensToMemberships1763800001100,
  CreateInvitations1763800001150,
  ExecutionValueSizes1763800001200,
  EnvironmentVariableSecretFlag1763800001300,
  CreateExecutionAnswers1763800001400,
  CreateDashboards1763800001500,
  CreatePackages1763800001600,
  CreateDataStoreShares1763800001700,
  UniqueFeedSources1763800001800,
  ScheduleAndAgentRuns1763800001900,
  CreateScheduleTriggers1763800002000,
  NotifyAuthChanges1763800002100,
  SharesEndWithGranters1763800002200,
  SealedStepOutputs1763800002300,
  ExecutionsByAge1763800002400,
  ConnectionTokenRefreshLease1763800002500,
  CreateFeedSyncs1763800002600,
  CreateFeedSyncSeen1763800002700,
  ExecutionsByMode1763800002800,
  CreateConsoleSessions1763800002900,
  ExecutionWaits1763800003000,
  ChildAndErrorRuns1763800003100,
  ReplayFromStep1763800003200,
  ExecutionLoopItems1763800003300,
  VerifiedWebhooks1763800003400,
  ExecutionsByDelivery1763800003500,
  FeedSyncsRunning1763800003600,
  WaitEventClaims1763800003700,
  DefinitionsAsWritten1763800003800,
  WorkflowDrafts1763800003900,
  TextWidgets1763800004000,
  TokenPermissions1763800004100,
  StepUsage1763800004200,
  BuiltInRunSources1763800004250,
  OrganizationLlmPrices1763800004300,
  TriggerTraceContext1763800004400,
];
