package flect
