import { join } from 'node:path';
import { AvatarStore } from './avatar-store.js';

/** Avatar files, under the data directory. */
export function wireAvatars(deps: { dataDir: string }): { avatars: AvatarStore } {
  return { avatars: new AvatarStore(join(deps.dataDir, 'uploads')) };
}
