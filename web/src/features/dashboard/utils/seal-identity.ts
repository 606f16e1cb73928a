import { armor, Encrypter } from "age-encryption";

/**
 * Seals an identity pasted in the restore wizard to the restoring agent's identityRecipient (an
 * age X25519 key pair that agent keeps in memory only): the server forwards what it cannot open.
 * Armored, as the restore request's sealedIdentity.
 */
export async function sealIdentity(identity: string, recipient: string): Promise<string> {
  const encrypter = new Encrypter();
  encrypter.addRecipient(recipient);
  return armor.encode(await encrypter.encrypt(identity));
}
