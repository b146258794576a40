import { SearchAttributeType } from '@temporalio/common';
import { devServerSearchAttributeArgs, SEARCH_ATTRIBUTE_KEYS, SEARCH_ATTRIBUTES, searchAttributeCreateCommand } from './search-attributes';

describe('the search attribute list', () => {
  it('gives every attribute a typed key of the same name and type', () => {
    for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) {
      expect(SEARCH_ATTRIBUTE_KEYS[name as keyof typeof SEARCH_ATTRIBUTES]).toEqual({ name, type });
    }
    expect(Object.keys(SEARCH_ATTRIBUTE_KEYS)).toEqual(Object.keys(SEARCH_ATTRIBUTES));
  });

  it('starts the dev server with each of them', () => {
    expect(devServerSearchAttributeArgs()).toEqual([
      '--search-attribute',
      'OrganizationId=Keyword',
      '--search-attribute',
      'WorkflowName=Keyword',
      '--search-attribute',
      'TriggerName=Keyword',
      '--search-attribute',
      'WaitingFor=Keyword',
      '--search-attribute',
      'DeliveryId=Keyword',
      '--search-attribute',
      'DataSourceId=Keyword',
      '--search-attribute',
      'FeedKey=Keyword',
    ]);
    expect(SEARCH_ATTRIBUTES.FeedKey).toBe(SearchAttributeType.KEYWORD);
  });

  it('spells the CLI command that adds the missing ones, a name and type pair each', () => {
    expect(searchAttributeCreateCommand(['DataSourceId', 'FeedKey'], 'prod', 'temporal:7233')).toBe(
      'temporal operator search-attribute create --address temporal:7233 --namespace prod --name DataSourceId --type Keyword --name FeedKey --type Keyword',
    );
    expect(searchAttributeCreateCommand(['OrganizationId'], 'default')).toBe(
      'temporal operator search-attribute create --namespace default --name OrganizationId --type Keyword',
    );
  });
});
