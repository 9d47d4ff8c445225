/**
 * `usergroups.users.list`: the members of a user group (`S…`), as the test set them with
 * `SlackStandIn.setUsergroup`. `include_disabled` and `team_id` are accepted (the latter matters to
 * Slack only with org tokens); a group the stand-in does not know is `no_such_subteam`, as in Slack.
 */
import { failure, type MethodHandler, ok, stringArg } from './method-handler.js';

const usersList: MethodHandler = (args, { state }) => {
  const id = stringArg(args, 'usergroup');
  if (id === undefined) return failure('invalid_arguments');
  const users = state.usergroups.get(id);
  if (!users) return failure('no_such_subteam');
  return ok({ users: [...users] });
};

export const usergroupMethods: Record<string, MethodHandler> = {
  'usergroups.users.list': usersList,
};
