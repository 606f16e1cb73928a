import { toast } from "./toast-store";

/** Copies text to the clipboard and says so ('Copied to clipboard!'), or that it could not. */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    toast({ title: "Copied to clipboard!", variant: "success" });
    return true;
  } catch {
    // Insecure origin or permission refused: the text stays selectable in its field.
    toast({ title: "Could not copy", description: "Select the text and copy it yourself.", variant: "destructive" });
    return false;
  }
}
