import type { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { withContext } from '../../server.js';
import { type Env, fail, printErr } from '../run.js';

/** `svc user create`. */
export function registerUser(program: Command, env: Env): void {
  const user = program.command('user').description('manage users');
  user
    .command('create')
    .description('create a user')
    .requiredOption('--username <username>')
    .requiredOption('--email <email>')
    .option('--name <name>', 'display name (defaults to the username)')
    .requiredOption('--password <password>', 'at least 8 characters')
    .option('--admin', 'make the user an administrator', false)
    .action(
      async (o: { username: string; email: string; name?: string; password: string; admin: boolean }) => {
        try {
          await withContext(loadConfig(env), { print: printErr }, async (ctx) => {
            const u = await ctx.users.create('system', {
              username: o.username,
              email: o.email,
              name: o.name ?? o.username,
              password: o.password,
              admin: o.admin,
            });
            process.stdout.write(
              `svc: created user ${u.username} (id ${u.id})${u.admin ? ' as administrator' : ''}\n`,
            );
          });
        } catch (err) {
          fail(err);
        }
      },
    );
}
