import { isUsageFailure, runAdminCommand, USAGE } from './admin-commands';

// `npm run admin -- <command>`: stdout carries only the command's JSON result; exit 2 for bad arguments, 1 for a failure.
runAdminCommand(process.argv.slice(2))
  .then((result) => {
    process.stdout.write(JSON.stringify(result) + '\n');
    process.exit(0);
  })
  .catch((err) => {
    if (isUsageFailure(err)) {
      process.stderr.write(`${err.message}\n\n${USAGE}\n`);
      process.exit(2);
    }
    process.stderr.write(`admin command failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
