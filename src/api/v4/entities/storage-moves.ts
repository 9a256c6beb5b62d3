import { Type } from '@sinclair/typebox';
import { Int, Nullable, Str } from './common.js';

export const StorageMoveEntity = Type.Object({
  id: Int,
  created_at: Str,
  state: Str,
  source_storage_name: Str,
  destination_storage_name: Str,
  error_message: Nullable(Str),
  project: Type.Optional(
    Nullable(
      Type.Object({
        id: Int,
        description: Str,
        name: Str,
        name_with_namespace: Str,
        path: Str,
        path_with_namespace: Str,
        created_at: Str,
      }),
    ),
  ),
  snippet: Type.Optional(
    Nullable(
      Type.Object({ id: Int, title: Str, description: Str, visibility: Str, created_at: Str, web_url: Str }),
    ),
  ),
  group: Type.Optional(Nullable(Type.Object({ id: Int, name: Str, full_path: Str, web_url: Str }))),
});
