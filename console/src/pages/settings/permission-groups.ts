import type { Permission } from '../../session/session';

/** The permissions a token can be given, grouped by what they reach, each with what it allows (README "Access"). */
export const PERMISSION_GROUPS: Array<{ label: string; permissions: Array<{ permission: Permission; text: string }> }> = [
  {
    label: 'Workflows and data stores',
    permissions: [
      { permission: 'workflows:view', text: 'read workflows, runs and data stores' },
      { permission: 'workflows:admin', text: 'change and run workflows, write data stores' },
    ],
  },
  {
    label: 'Connections',
    permissions: [
      { permission: 'secrets:view', text: 'read connections, their credentials included' },
      { permission: 'secrets:admin', text: 'create, change and delete connections' },
    ],
  },
  {
    label: 'Dashboards',
    permissions: [
      { permission: 'dashboards:view', text: 'read dashboards and query their data' },
      { permission: 'dashboards:admin', text: 'change dashboards, widgets and data sources' },
    ],
  },
  {
    label: 'Organization',
    permissions: [
      { permission: 'members:admin', text: 'invite and manage members, and their tokens' },
      { permission: 'packages:admin', text: 'install and uninstall packages' },
      { permission: 'shares:admin', text: 'share data store tables with other organizations' },
    ],
  },
];
