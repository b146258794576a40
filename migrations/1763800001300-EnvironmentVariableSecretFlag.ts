import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Whether an environment variable is a secret: secret values are masked in
 * what the service records (execution records, Temporal history, logs);
 * plain configuration such as a base URL is not. Existing variables stay
 * secret, as they were treated until now.
 */
export class EnvironmentVariableSecretFlag1763800001300 implements MigrationInterface {
  name = 'EnvironmentVariableSecretFlag1763800001300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE environment_variables ADD COLUMN secret boolean NOT NULL DEFAULT true`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE environment_variables DROP COLUMN secret`);
  }
}
