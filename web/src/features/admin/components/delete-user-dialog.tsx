import { Button } from "../../../components/ui/button";
import { Dialog } from "../../../components/ui/dialog";

type Props = { open: boolean; busy: boolean; onCancel: () => void; onConfirm: () => void };

/** The 'Delete user' confirmation of spec 2. */
export function DeleteUserDialog({ open, busy, onCancel, onConfirm }: Props) {
  return (
    <Dialog
      open={open}
      onClose={onCancel}
      title="Delete user"
      description="This action cannot be undone. All user data may be lost."
      footer={
        <>
          <Button variant="outline" onClick={onCancel}>
            Cancel
          </Button>
          <Button variant="destructive" disabled={busy} onClick={onConfirm}>
            Delete
          </Button>
        </>
      }
    />
  );
}
