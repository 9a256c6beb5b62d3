/** Avatars of users, projects and groups: what an upload may be, where it is served, and users' identicons. */
import { createHash } from 'node:crypto';
import { invalidFields } from '../errors.js';

export type AvatarKind = 'user' | 'project' | 'group';

/** A file part of a request, as the HTTP layer hands it down. */
export interface UploadedFile {
  readonly filename: string;
  readonly data: Buffer;
}

/** GitLab's `Avatarable::MAXIMUM_FILE_SIZE`: 200 KiB. */
export const AVATAR_MAX_BYTES = 200 * 1024;

/** GitLab's `Gitlab::FileTypeDetection::SAFE_IMAGE_EXT`, in its order (the error message lists them so). */
export const AVATAR_EXTENSIONS = ['png', 'jpg', 'jpeg', 'gif', 'bmp', 'tiff', 'ico', 'webp'] as const;

/** The image formats an avatar may be, by what its bytes start with; each is served with its own type. */
const FORMATS: readonly { type: string; test: (b: Buffer) => boolean }[] = [
  { type: 'image/png', test: (b) => b.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex')) },
  { type: 'image/jpeg', test: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: 'image/gif', test: (b) => /^GIF8[79]a/.test(b.subarray(0, 6).toString('latin1')) },
  { type: 'image/bmp', test: (b) => b.subarray(0, 2).toString('latin1') === 'BM' },
  {
    type: 'image/tiff',
    test: (b) => ['49492a00', '4d4d002a'].includes(b.subarray(0, 4).toString('hex')),
  },
  { type: 'image/vnd.microsoft.icon', test: (b) => b.subarray(0, 4).toString('hex') === '00000100' },
  {
    type: 'image/webp',
    test: (b) =>
      b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  },
];

/** The image type of `data` by its first bytes, or null when it is none of the avatar formats. */
export function imageType(data: Buffer): string | null {
  return FORMATS.find((f) => f.test(data))?.type ?? null;
}

/**
 * The name an upload is stored and served under: its base name with every character outside letters, digits, `.`,
 * `-`, `+` and `_` replaced by `_` (CarrierWave's sanitizing, which GitLab's uploaders use), at most 100 characters.
 */
export function storedName(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? '';
  const clean = base.replace(/[^\p{L}\p{N}._+-]/gu, '_').replace(/[^\x20-\x7e]/g, '_');
  const dot = clean.lastIndexOf('.');
  const ext = dot > 0 ? clean.slice(dot) : '';
  const stem = (dot > 0 ? clean.slice(0, dot) : clean).replace(/^\.+/, '') || 'avatar';
  return `${stem.slice(0, 100 - ext.length)}${ext.toLowerCase()}`;
}

/**
 * Checks an avatar upload as GitLab's `Avatarable` validations do: the file name's extension must be an image
 * format's (`avatar_type`), the file at most 200 KiB (`file_size`). svc also reads the first bytes: what is served
 * as an image must be one, whatever its name says. Refusals are GitLab's validation errors (`{"avatar": [...]}`).
 */
export function checkAvatar(file: UploadedFile): { name: string; contentType: string } {
  const name = storedName(file.filename);
  const ext = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : '';
  const type = imageType(file.data);
  if (!(AVATAR_EXTENSIONS as readonly string[]).includes(ext) || type === null) {
    throw invalidFields({
      avatar: [
        `file format is not supported. Please try one of the following supported formats: ${AVATAR_EXTENSIONS.join(', ')}`,
      ],
    });
  }
  if (file.data.length > AVATAR_MAX_BYTES)
    throw invalidFields({ avatar: ['is too big (should be at most 200 KiB)'] });
  return { name, contentType: type };
}

/** The path (below the external URL) an uploaded avatar is served at: GitLab's. */
export function avatarPath(kind: AvatarKind, id: number, name: string): string {
  return `/uploads/-/system/${kind}/avatar/${id}/${encodeURIComponent(name)}`;
}

/**
 * The name of a user's identicon (`/-/identicon/<hash>.png`): a digest of the user's id, so it stays when the user
 * is renamed, tells nothing about the user, and the image is drawn from the name alone.
 */
export function identiconHash(userId: number): string {
  return createHash('sha256').update(`svc-user:${userId}`).digest('hex').slice(0, 32);
}

/** Where a user's avatar is served: the uploaded one, else the identicon (GitLab never answers null for a user). */
export function userAvatarPath(userId: number, avatar: string | null): string {
  return avatar === null ? `/-/identicon/${identiconHash(userId)}.png` : avatarPath('user', userId, avatar);
}
