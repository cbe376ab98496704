package signals

// The tests read IANA zones as the functions do (functions/signals embeds them).
import _ "time/tzdata"
