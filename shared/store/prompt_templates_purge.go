package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// What a deleted prompt template leaves behind: its partition PTEMPLATE#<id> (home record,
// versions, collaborators). The deletion's transaction removes the template record, its name
// claim and its home record, which is all a reader needs to see the template gone; the table's
// stream then reports the template record's removal and the stream consumer (shared/purge)
// removes the rest, so that a fault after the transaction cannot leave the rest behind for
// good (a retry of the delete answers 404 and would never reach it). The template record is
// the trigger, not the home record: templates stored before the global routes have none, and
// a deleted project's purge removes its templates' records, whose removal then purges their
// partitions too.

// DeletedPromptTemplate recognizes the last image of a deleted template record (of a project
// or of the organization) and returns its key and the template's id.
func DeletedPromptTemplate(old Item) (k Key, id string, ok bool) {
	k = old.Key()
	if old[AttrEntity] != EntityPromptTemplate || !strings.HasPrefix(k.PK, "PROJECT#") && !strings.HasPrefix(k.PK, orgTemplatesPK("")) {
		return Key{}, "", false
	}
	id, ok = strings.CutPrefix(k.SK, "TEMPLATE#")
	return k, id, ok && id != ""
}

// PurgePromptTemplate removes every item left in the partition of the deleted template whose
// record had key k and returns how many it removed. Like PurgeDataset, it refuses while the
// record exists, and running it again is harmless.
func PurgePromptTemplate(ctx context.Context, t Table, k Key) (int, error) {
	id, ok := strings.CutPrefix(k.SK, "TEMPLATE#")
	if !ok || id == "" {
		return 0, fmt.Errorf("purge prompt template %s: %w: not a template's key", k, ErrInvalid)
	}
	if _, err := t.Get(ctx, k, true); !errors.Is(err, ErrNotFound) {
		if err == nil {
			return 0, fmt.Errorf("purge prompt template %s: %w: the template exists", id, ErrInvalid)
		}
		return 0, fmt.Errorf("purge prompt template %s: %w", id, err)
	}
	return purgePartition(ctx, t, promptTemplateHomeKey(id).PK)
}
