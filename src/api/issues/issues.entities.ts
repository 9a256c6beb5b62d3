import { Type } from 'typebox';
import { Int, Nullable, Str } from '../common/common.entities.js';

export const IssueEntity = Type.Object({
  id: Int,
  iid: Int,
  project_id: Int,
  title: Str,
  description: Str,
  state: Str,
  issue_type: Str,
  type: Str,
  labels: Type.Array(Str),
  created_at: Str,
  updated_at: Str,
  closed_at: Nullable(Str),
  web_url: Str,
});
