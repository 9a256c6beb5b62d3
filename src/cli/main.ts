import { Command } from 'commander';
import { restrictUmask } from '../file-modes.js';
import { packageVersion } from '../package-version.js';
import { registerBackup } from './commands/backup.js';
import { registerConfig } from './commands/config.js';
import { registerDeprecations } from './commands/deprecations.js';
import { registerListRepos } from './commands/list-repos.js';
import { registerMigrate } from './commands/migrate.js';
import { registerServer } from './commands/server.js';
import { registerStorageMove } from './commands/storage-move.js';
import { registerToken } from './commands/token.js';
import { registerUpgradeCheck } from './commands/upgrade-check.js';
import { registerUser } from './commands/user.js';
import { EXIT_USAGE } from './run.js';

// The `svc` command (bin/svc.js runs the build of this file). Whatever the operator's umask, files and folders
// svc and its git processes create are owner-only.
restrictUmask();

const env = process.env;
const program = new Command('svc')
  .description('svc: alert intake, error tracking and repository storages behind a GitLab-shaped REST API')
  .version(packageVersion(), '-V, --version', 'print the version of svc')
  .showHelpAfterError()
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : EXIT_USAGE));

for (const register of [
  registerServer,
  registerMigrate,
  registerUser,
  registerToken,
  registerConfig,
  registerDeprecations,
  registerUpgradeCheck,
  registerBackup,
  registerListRepos,
  registerStorageMove,
]) {
  register(program, env);
}

await program.parseAsync(process.argv);
