module example.com/humaneval/truncate_number

go 1.22
