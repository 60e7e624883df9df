// Who made a request, as authentication found it (kube's user.Info): authorization, admission
// and audit read it.

export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
}
