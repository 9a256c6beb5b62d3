/** Issues of a project; incidents are issues of type `incident`. */
export type IssueType = 'issue' | 'incident';

export interface Issue {
  readonly id: number;
  readonly projectId: number;
  readonly iid: number;
  readonly title: string;
  readonly description: string;
  readonly issueType: IssueType;
  readonly state: 'opened' | 'closed';
  readonly authorId: number | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly closedAt: string | null;
}
