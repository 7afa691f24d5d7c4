module example.com/console

go 1.22
