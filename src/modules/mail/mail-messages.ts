// The words of the mails Rulekeeper sends: an invite and a password reset link. Plain text: a link
// a person can read before following it, nothing a mail client would load on its own.
import type { Role } from '../../model/role.js';
import type { MailMessage } from './mailer.js';

const when = (at: number) => new Date(at).toUTCString();

export function inviteMail(invite: {
  to: string;
  workspace: string;
  role: Role;
  link: string;
  expiresAt: number;
}): MailMessage {
  return {
    to: invite.to,
    subject: `You are invited to the Rulekeeper workspace ${invite.workspace}`,
    text: [
      `You are invited to join the Rulekeeper workspace "${invite.workspace}" as ${invite.role}.`,
      '',
      `Open this link to accept (it works once, until ${when(invite.expiresAt)}):`,
      '',
      invite.link,
      '',
      'If you did not expect this invitation, ignore this mail.',
    ].join('\n'),
  };
}

export function resetMail(reset: { to: string; link: string; expiresAt: number }): MailMessage {
  return {
    to: reset.to,
    subject: 'Reset your Rulekeeper password',
    text: [
      'Someone (you, we hope) asked to reset the password of your Rulekeeper account.',
      '',
      `Open this link to choose a new one (it works once, until ${when(reset.expiresAt)}):`,
      '',
      reset.link,
      '',
      'Setting a new password signs you out everywhere. If you did not ask for this, ignore this mail:',
      'your password stays as it is.',
    ].join('\n'),
  };
}
