import { type Command, Option } from 'commander';
import { loadConfig } from '../../config.js';
import { withContext } from '../../server.js';
import { TOKEN_SCOPES, type TokenScope } from '../../users/users.js';
import { type Env, fail, printErr, usage } from '../run.js';

/** `svc token create`: prints a new personal access token once. */
export function registerToken(program: Command, env: Env): void {
  const token = program.command('token').description('manage personal access tokens');
  token
    .command('create')
    .description('create a personal access token and print it (shown once)')
    .requiredOption('--user <username>', 'the owner (username or id)')
    .option('--name <name>', 'token name', 'cli')
    .addOption(new Option('--scopes <scopes>', `comma-separated: ${TOKEN_SCOPES.join(', ')}`).default('api'))
    .option('--expires-at <date>', 'YYYY-MM-DD')
    .action(async (o: { user: string; name: string; scopes: string; expiresAt?: string }) => {
      try {
        const scopes = o.scopes
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        const bad = scopes.filter((s) => !TOKEN_SCOPES.includes(s as TokenScope));
        if (bad.length > 0)
          usage(`unknown scope ${bad.join(', ')}; valid scopes: ${TOKEN_SCOPES.join(', ')}`);
        await withContext(loadConfig(env), { print: printErr }, async (ctx) => {
          const owner = await ctx.users.resolve(o.user);
          if (!owner) throw new Error(`no user "${o.user}"`);
          const t = await ctx.users.createToken('system', owner.id, {
            name: o.name,
            scopes: scopes as TokenScope[],
            expiresAt: o.expiresAt ?? null,
          });
          process.stdout.write(`${t.token}\n`);
        });
      } catch (err) {
        fail(err);
      }
    });
}
