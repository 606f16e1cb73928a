import { armor, Decrypter, generateX25519Identity, identityToRecipient } from "age-encryption";

/**
 * The key pair an identity pasted in the web's restore wizard is sealed to (issue 27 §4: the server
 * never receives it in plaintext). Generated when the daemon starts and kept in this process's
 * memory only: written nowhere, it cannot leak from a disk or a config backup, and a copy sealed
 * to an earlier run cannot be opened by a later one. The cost: a wizard opened before the agent
 * restarted seals to the old key, and the restore fails saying to paste it again.
 */
export interface IdentityTransport {
  /** The public part (`age1…`), sent in the hello for the server to give the web. */
  recipient: string;
  /** The identity text a restore command carries sealed; the error never quotes what it opened. */
  open(sealed: string): Promise<string>;
}

export async function createIdentityTransport(): Promise<IdentityTransport> {
  const secret = await generateX25519Identity();
  const recipient = await identityToRecipient(secret);
  return {
    recipient,
    async open(sealed) {
      const decrypter = new Decrypter();
      decrypter.addIdentity(secret);
      try {
        return (await decrypter.decrypt(armor.decode(sealed), "text")).trim();
      } catch {
        throw new Error(
          "the identity sent with this restore was sealed for another run of this agent (it restarted since the restore wizard opened): open the restore wizard again and paste the identity",
        );
      }
    },
  };
}
