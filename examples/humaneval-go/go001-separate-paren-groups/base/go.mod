module example.com/humaneval/separate_paren_groups

go 1.22
